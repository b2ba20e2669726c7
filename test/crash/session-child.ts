// Child process of the session crash test: chats on one session through the session engine
// (the code the chat route runs) until killed. Each turn's message id is `<prefix>-<n>`; it
// prints `ready` once the store is open and `ack <id>` once the turn's stream has sent
// `finish` — what a client takes as "the answer is stored". With `killAfterWrites` = k > 0 on
// a SQL store, it kills itself (SIGKILL) as soon as the k-th `putWrites` of its saver has
// committed, before the checkpoint that follows it: the moment issue 27's lost questions came from.
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { createOfflineModel } from '../../src/llm/index.ts';
import { PostgresSaver } from '../../src/runtime/checkpoint/postgres-saver.ts';
import { SqliteSaver } from '../../src/runtime/checkpoint/sqlite-saver.ts';
import { createCheckpointSessionStore } from '../../src/session/checkpoint-session-store.ts';
import { createSessionEngine, type SessionStore } from '../../src/session/index.ts';
import { openSessionStore, parseSessionStoreSpec } from '../../src/session/open-session-store.ts';
import { createPostgresThreadLock } from '../../src/session/postgres-thread-lock.ts';
import { openWorkspace } from '../../src/workspace/index.ts';

const [root = '', spec = '', prefix = 'q', killAfterWrites = '0'] = process.argv.slice(2);
const workspace = openWorkspace({ root });
const store =
  Number(killAfterWrites) > 0
    ? await openKillingStore(Number(killAfterWrites))
    : await openSessionStore(spec, { workspace });
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

/** The store `openSessionStore` opens for a SQL spec, on a saver that dies after its k-th putWrites. */
async function openKillingStore(k: number): Promise<SessionStore> {
  const parsed = parseSessionStoreSpec(spec);
  if (parsed.kind === 'files') throw new Error('killAfterWrites needs a SQL store');
  const saver =
    parsed.kind === 'sqlite'
      ? new SqliteSaver({ path: parsed.path })
      : new PostgresSaver({ connectionString: parsed.connectionString, schema: parsed.schema });
  await saver.setup();
  let writes = 0;
  const killing = new Proxy(saver, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key);
      if (key === 'putWrites') {
        return async (...args: Parameters<BaseCheckpointSaver['putWrites']>) => {
          await target.putWrites(...args);
          writes += 1;
          if (writes >= k) process.kill(process.pid, 'SIGKILL');
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return createCheckpointSessionStore({
    saver: killing,
    kind: parsed.kind,
    ...(parsed.kind === 'postgres'
      ? {
          lock: createPostgresThreadLock({ connectionString: parsed.connectionString, scope: parsed.schema }),
        }
      : {}),
  });
}
