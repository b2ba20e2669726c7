// Child process of the session crash test: chats on one session through the session engine
// (the code the chat route runs) until killed. Each turn's message id is `<prefix>-<n>`; it
// prints `ready` once the store is open and `ack <id>` once the turn's stream has sent
// `finish` — what a client takes as "the answer is stored".
import { createOfflineModel } from '../../src/llm/index.ts';
import { createSessionEngine } from '../../src/session/index.ts';
import { openSessionStore } from '../../src/session/open-session-store.ts';
import { openWorkspace } from '../../src/workspace/index.ts';

const [root = '', spec = '', prefix = 'q'] = process.argv.slice(2);
const workspace = openWorkspace({ root });
const store = await openSessionStore(spec, { workspace });
const engine = createSessionEngine({
  workspace,
  store,
  model: { model: createOfflineModel(), spec: 'offline', offline: true },
});
process.stdout.write('ready\n');
for (let turn = 0; ; turn += 1) {
  const messageId = `${prefix}-${turn}`;
  const result = await engine.runTurn({ sessionId: 'raft-consensus', text: `question ${turn}`, messageId });
  const reader = result.stream.getReader();
  let finished = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (value.type === 'finish') finished = true;
  }
  if (!finished) throw new Error(`turn ${messageId} ended without finish`);
  process.stdout.write(`ack ${messageId}\n`);
}
