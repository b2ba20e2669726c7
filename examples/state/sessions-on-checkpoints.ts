import { cp, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOfflineModel } from '../../src/llm/index.ts';
import { SqliteSaver } from '../../src/runtime/index.ts';
import {
  createCheckpointSessionStore,
  createSessionEngine,
  openSessionStore,
} from '../../src/session/index.ts';
import { openWorkspace } from '../../src/workspace/index.ts';

// A copy of the example notebook (run from the repository's root).
const root = await mkdtemp(join(tmpdir(), 'notebook-'));
await cp('examples/notebook', root, { recursive: true });
const workspace = openWorkspace({ root });
const model = { model: createOfflineModel(), spec: 'offline', offline: true };
const url = process.env.SESSIONS_URL ?? 'postgres://postgres@127.0.0.1:5432/test?schema=ctx';

const saver = new SqliteSaver({ path: join(root, 'sessions.db') });
const sqlite = createCheckpointSessionStore({ saver }); // one process per file
const postgres = await openSessionStore(url, { workspace }); // + advisory lock
for (const store of [sqlite, postgres]) {
  const engine = createSessionEngine({ workspace, store, model });
  const turn = await engine.runTurn({ sessionId: 'raft-consensus', text: 'What is a term?' });
  await turn.stored;
  const { messages } = await store.load('raft-consensus');
  console.log(store.kind, messages.at(-1)?.role); // the answer, stored in the session's thread
}
await saver.close();
await postgres.close();
