// Child process of the two-process SQLite session store test: opens the store as the CLI does
// (`openSessionStore('sqlite:<path>')`), waits for `go` on stdin, then appends its messages one
// after another and prints one JSON line with what was stored and what was refused.
import { once } from 'node:events';
import { openWorkspace } from '../workspace/index.ts';
import { openSessionStore } from './open-session-store.ts';

const [path = '', root = '', sessionId = '', tag = '', countArgument = '10'] = process.argv.slice(2);
const store = await openSessionStore(`sqlite:${path}`, { workspace: openWorkspace({ root }) });
process.stdout.write('ready\n');
await once(process.stdin, 'data');
const stored: string[] = [];
const refused: { id: string; code: unknown }[] = [];
for (let index = 0; index < Number(countArgument); index++) {
  const id = `${tag}-${index}`;
  try {
    await store.appendMessages(sessionId, [{ id, role: 'user', content: `from ${tag}: ${id}` }]);
    stored.push(id);
  } catch (error) {
    refused.push({ id, code: (error as { code?: unknown }).code ?? String(error) });
  }
}
process.stdout.write(`${JSON.stringify({ stored, refused })}\n`);
await store.close();
process.exit(0);
