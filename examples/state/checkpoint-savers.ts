import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HumanMessage } from '@langchain/core/messages';
import { createOfflineModel } from '../../src/llm/index.ts';
import { createSequentialProcess, defineAgent, PostgresSaver, SqliteSaver } from '../../src/runtime/index.ts';

// PostgreSQL: many processes, one database; the saver's table lives in `schema`.
const connectionString = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = process.env.DATABASE_SCHEMA ?? 'public';
const agents = [
  defineAgent({ id: 'writer', systemPrompt: 'You write release notes.', model: createOfflineModel() }),
];

const sqlite = new SqliteSaver({ path: join(await mkdtemp(join(tmpdir(), 'state-')), 'state.db') }); // embedded default
const postgres = new PostgresSaver({ connectionString, schema }); // many processes, one DB
const same = PostgresSaver.fromConnString(connectionString, { schema }); // LangGraph's constructor
for (const saver of [sqlite, postgres]) {
  const graph = createSequentialProcess({ agents }).compile({ checkpointer: saver });
  const config = { configurable: { thread_id: 'release-1' } };
  await graph.invoke(
    { messages: [new HumanMessage({ id: 'u1', content: 'Notes for 1.2, please.' })] },
    config,
  );
  console.log((await graph.getState(config)).values.messages.length); // the question and the answer: 2
  await saver.prune({ keepLast: 20 });
  await saver.vacuum();
}
console.log((await same.getTuple({ configurable: { thread_id: 'release-1' } })) !== undefined); // true
await Promise.all([sqlite.close(), postgres.close(), same.close()]);
