import { cp, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOfflineModel } from '../../src/llm/index.ts';
import { createFileSessionStore, createSessionEngine } from '../../src/session/index.ts';
import { openWorkspace } from '../../src/workspace/index.ts';

// A copy of the example notebook to write into (run from the repository's root).
const root = await mkdtemp(join(tmpdir(), 'notebook-'));
await cp('examples/notebook', root, { recursive: true });

const workspace = openWorkspace({ root });
const engine = createSessionEngine({
  workspace,
  store: createFileSessionStore({ workspace }), // messages.json, memory.json, compression.json, calls/
  model: { model: createOfflineModel(), spec: 'offline', offline: true }, // or openai('gpt-4o-mini')…
});
const preview = await engine.compile('raft-consensus'); // exactly what the next call sends
console.log(`next call: ${preview.report.totalTokens} tokens`);
const turn = await engine.runTurn({ sessionId: 'raft-consensus', text: 'What is a term?' });
for await (const chunk of turn.stream) if (chunk.type === 'text-delta') process.stdout.write(chunk.delta);
await engine.runTurn({ sessionId: 'raft-consensus', text: '/compress' }); // a command, not a model call
console.log((await engine.listCalls('raft-consensus')).at(-1)?.report.totalTokens);
