import {
  createHeuristicRequirementProposer,
  createRequirementTodoSnapshot,
  formatThreadId,
  updateRequirementTodoSnapshot,
} from '../../src/compression/index.ts';

const threadId = formatThreadId({ app: 'etl', userId: 'alice', sessionId: 'window-1' });
const snapshot = createRequirementTodoSnapshot({ threadId });
const {
  status,
  snapshot: next,
  delta,
  rejections,
} = await updateRequirementTodoSnapshot({
  proposer: createHeuristicRequirementProposer(), // offline; or `model`: any AI SDK model
  snapshot,
  userMessage: { id: 'u3', role: 'user', content: '金额口径用实付金额，不含退款。' },
  turn: 3,
});
console.log(status, delta?.id, rejections);
for (const item of next.items) console.log(item.id, item.type, item.evidence[0]);
