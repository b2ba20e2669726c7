import {
  type CompressionState,
  createCompressionState,
  formatThreadId,
} from '../../src/compression/index.ts';
import {
  applyCommanderPatch,
  createLexicalRouter,
  processUserMessage,
  resolveRouterConfig,
} from '../../src/routing/index.ts';
import { getTokenCounter } from '../../src/tokenizers/index.ts';
import { agents } from './agents.ts';

let state: CompressionState = createCompressionState({
  threadId: formatThreadId({ app: 'etl', userId: 'alice', sessionId: 'window-1' }),
});
const userMessage = {
  id: 'u1',
  role: 'user' as const,
  content: '指标口径：GMV 必须按实付金额计算，不含退款。',
};
const { outcome, patch } = await processUserMessage({
  state,
  agents,
  userMessage,
  turn: 0,
  counter: getTokenCounter('gpt-4o'),
  router: createLexicalRouter(), // or createModelRouter({ model })
  config: resolveRouterConfig({ app: 'etl', values: process.env }), // etl_router_confidence_threshold
  coordination: { pendingRequests: [], requestResults: [] },
});
state = applyCommanderPatch(state, patch); // or the StateBuilder adapter
console.log(
  outcome.type,
  patch.actions.map((action) => `${action.type}:${action.status}`),
);
for (const item of state.requirements.global.items) console.log(item.id, item.type, item.evidence[0]?.quote);
