// Child process of the two-process store test: opens the PostgreSQL session store, waits for
// `go` on stdin, then fires its appends at once (one message each, plus the shared id `dup`)
// and prints one JSON line with what was stored and what was refused.
import { once } from 'node:events';
import { PostgresSaver } from '../../src/runtime/checkpoint/postgres-saver.ts';
import { createCheckpointSessionStore } from '../../src/session/checkpoint-session-store.ts';
import { createPostgresThreadLock } from '../../src/session/postgres-thread-lock.ts';

const [url = '', schema = '', sessionId = '', tag = '', countArgument = '10'] = process.argv.slice(2);
const saver = new PostgresSaver({ connectionString: url, schema });
await saver.setup();
const lock = createPostgresThreadLock({ connectionString: url, scope: schema });
const store = createCheckpointSessionStore({ saver, kind: 'postgres', lock });
process.stdout.write('ready\n');
await once(process.stdin, 'data');
const ids = [...Array.from({ length: Number(countArgument) }, (_, index) => `${tag}-${index}`), 'dup'];
const results = await Promise.allSettled(
  ids.map((id) => store.appendMessages(sessionId, [{ id, role: 'user', content: `from ${tag}: ${id}` }])),
);
const stored: string[] = [];
const refused: { id: string; code: unknown }[] = [];
results.forEach((result, index) => {
  const id = ids[index] as string;
  if (result.status === 'fulfilled') stored.push(id);
  else refused.push({ id, code: (result.reason as { code?: unknown }).code ?? String(result.reason) });
});
process.stdout.write(`${JSON.stringify({ stored, refused })}\n`);
await store.close();
await saver.close();
process.exit(0);
