import { describe, expect, it } from 'vitest';
import { createRequirementTodoSnapshot } from './create-requirement-todo-snapshot.ts';
import { createHeuristicRequirementProposer } from './heuristic-requirement-proposer.ts';
import { formatThreadId } from './thread-id.ts';
import { updateRequirementTodoSnapshot } from './update-requirement-todo-snapshot.ts';

const threadId = formatThreadId({ app: 'etl', userId: 'u1', sessionId: 's1' });
const proposer = createHeuristicRequirementProposer();

async function run(texts: string[]) {
  let snapshot = createRequirementTodoSnapshot({ threadId });
  for (const [turn, text] of texts.entries()) {
    const result = await updateRequirementTodoSnapshot({
      proposer,
      snapshot,
      userMessage: { id: `m${turn}`, role: 'user', content: text },
      turn,
    });
    snapshot = result.snapshot;
  }
  return snapshot;
}

describe('createHeuristicRequirementProposer', () => {
  it('extracts Chinese requirements sentence by sentence with types and priorities', async () => {
    const snapshot = await run([
      '你好！输出表必须是 dw.orders_daily。金额口径按实付金额计算；希望每天 8 点前跑完。',
    ]);
    expect(snapshot.items.map((item) => [item.type, item.priority, item.text])).toEqual([
      ['output', 'must', '输出表必须是 dw.orders_daily。'],
      ['rule', 'should', '金额口径按实付金额计算；'],
      ['preference', 'could', '希望每天 8 点前跑完。'],
    ]);
  });

  it('extracts English requirements, skips plain work requests and keeps dotted table names whole', async () => {
    const snapshot = await run([
      'Hi there. The job must read from ods.orders and write to dw.sales. We need a row-count test. Please rerun the job.',
    ]);
    expect(snapshot.items.map((item) => item.text)).toEqual([
      'The job must read from ods.orders and write to dw.sales.',
      'We need a row-count test.',
    ]);
    expect(snapshot.items[1]?.type).toBe('acceptance');
  });

  it('cancels a named requirement, resets on "start over" and ignores slash commands', async () => {
    const snapshot = await run([
      '输出表必须是 dw.a。需要按 dt 分区。',
      'G2 不需要了',
      '/compress requirement',
      'start over',
      '需要输出 dw.b',
    ]);
    expect(snapshot.items.map((item) => `${item.id}:${item.status}`)).toEqual([
      'G1:cancelled',
      'G2:cancelled',
      'G3:open',
    ]);
    expect(snapshot.evidenceHistory.map((record) => record.op)).toEqual([
      'add',
      'add',
      'cancel',
      'reset',
      'add',
    ]);
  });

  it('labels its results as the offline heuristic', async () => {
    const result = await updateRequirementTodoSnapshot({
      proposer,
      snapshot: createRequirementTodoSnapshot({ threadId }),
      userMessage: { id: 'm0', role: 'user', content: '需要按 dt 分区' },
      turn: 0,
    });
    expect(result.source).toBe('offline-heuristic');
  });

  it('does not add the same sentence twice', async () => {
    const snapshot = await run(['需要按 dt 分区', '需要按 dt 分区']);
    expect(snapshot.items).toHaveLength(1);
  });
});
