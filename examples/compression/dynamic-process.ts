import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHeuristicRequirementProposer, formatThreadId } from '../../src/compression/index.ts';
import { createOfflineModel } from '../../src/llm/index.ts';
import { createLexicalRouter, resolveRouterConfig } from '../../src/routing/index.ts';
import {
  CompressionStateModule,
  compressionSources,
  createCommanderRouter,
  createCompressionBlackboard,
  createCompressionCompactStage,
  createDynamicProcess,
  defineAgent,
  SqliteSaver,
  submitInput,
} from '../../src/runtime/index.ts';
import { StateBuilder } from '../../src/state/index.ts';
import { getTokenCounter } from '../../src/tokenizers/index.ts';
import { agents as descriptors } from './agents.ts';

const counter = getTokenCounter('gpt-4o');
const model = createOfflineModel(); // or any AI SDK model
const agents = descriptors.map(({ id, scope }) =>
  defineAgent({ id, systemPrompt: `You do: ${scope}.`, model }),
);
const saver = new SqliteSaver({ path: join(await mkdtemp(join(tmpdir(), 'etl-')), 'state.db') });

const blackboard = createCompressionBlackboard();
const graph = createDynamicProcess({
  blackboard,
  counter,
  agents,
  router: createCommanderRouter({
    agents: descriptors,
    router: createLexicalRouter(), // or createModelRouter({ model })
    config: resolveRouterConfig({ app: 'etl', values: process.env }),
    counter,
    proposer: createHeuristicRequirementProposer(),
  }),
  agentNode: () => ({ sources: compressionSources, compact: createCompressionCompactStage({ counter }) }),
}).compile({ checkpointer: saver });
const thread_id = formatThreadId({ app: 'etl', userId: 'alice', sessionId: 'window-1' });
const input = { inputId: 'u1', content: '指标口径：GMV 必须按实付金额计算，不含退款。' };
const session = { namespace: 'etl', sessionId: 'window-1' };
await submitInput({ graph, config: { configurable: { thread_id } }, input, session, blackboard });

const { values } = await graph.getState({ configurable: { thread_id } });
const state = new CompressionStateModule(new StateBuilder(values, { blackboard })).snapshot();
console.log(values.compression_coordination.lastTurn?.commander?.target); // analyst
console.log(values.messages.map((message: { id?: string }) => message.id)); // the input's, the reply's
console.log(state?.requirements.global.items.map((item) => item.id)); // [ 'G1' ]
await saver.close();
