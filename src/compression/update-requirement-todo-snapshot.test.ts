import { describe, expect, it } from 'vitest';
import { createCharCounter } from '../testing/index.ts';
import { buildRequirementTodoView } from './build-requirement-todo-view.ts';
import { createRequirementTodoSnapshot } from './create-requirement-todo-snapshot.ts';
import { mockJsonModel, promptOf } from './mock-json-model.test-support.ts';
import { formatThreadId } from './thread-id.ts';
import { updateRequirementTodoSnapshot } from './update-requirement-todo-snapshot.ts';

const threadId = formatThreadId({ app: 'etl', userId: 'u1', sessionId: 's1' });
const first = {
  id: 'm1',
  role: 'user' as const,
  content: '输出表 dw.orders_daily，按 dt 分区。金额口径用实付金额。',
};

async function seeded() {
  const model = mockJsonModel({
    ops: [
      {
        op: 'add',
        type: 'output',
        priority: 'must',
        text: 'Output dw.orders_daily partitioned by dt',
        quote: '输出表 dw.orders_daily，按 dt 分区',
      },
      {
        op: 'add',
        type: 'rule',
        priority: 'must',
        text: 'Amount = paid amount',
        quote: '金额口径用实付金额',
      },
    ],
  });
  const snapshot = createRequirementTodoSnapshot({ threadId });
  return updateRequirementTodoSnapshot({ model, snapshot, userMessage: first, turn: 0 });
}

describe('updateRequirementTodoSnapshot', () => {
  it('adds requirements with assigned ids and verbatim evidence anchors', async () => {
    const result = await seeded();
    expect(result.status).toBe('applied');
    expect(result.snapshot.items.map((item) => item.id)).toEqual(['G1', 'G2']);
    expect(result.snapshot.items[0]?.evidence).toEqual([
      { turnIndex: 0, messageId: 'm1', quote: '输出表 dw.orders_daily，按 dt 分区' },
    ]);
    expect(result.delta?.ops.map((op) => op.op)).toEqual(['add', 'add']);
    expect(result.snapshot.revision).toBe(1);
    expect(result.source).toBe('model:mock-provider/mock-model-id');
  });

  it('rejects the whole delta when one quote is not verbatim and keeps the snapshot', async () => {
    const { snapshot } = await seeded();
    const model = mockJsonModel({
      ops: [
        { op: 'add', type: 'input', priority: 'must', text: 'Read ods.orders', quote: '源表 ods.orders' },
        {
          op: 'update',
          id: 'G1',
          text: null,
          type: null,
          priority: 'should',
          status: null,
          quote: 'paraphrased words',
        },
      ],
    });
    const message = { id: 'm2', role: 'user' as const, content: '源表 ods.orders。分区不是硬性要求。' };
    const result = await updateRequirementTodoSnapshot({ model, snapshot, userMessage: message, turn: 1 });
    expect(result.status).toBe('rejected');
    expect(result.snapshot).toBe(snapshot);
    expect(result.rejections).toEqual([
      expect.objectContaining({ opIndex: 1, reason: 'quote-not-verbatim' }),
    ]);
  });

  it('rejects update and cancel of ids that do not exist', async () => {
    const { snapshot } = await seeded();
    const model = mockJsonModel({ ops: [{ op: 'cancel', id: 'G9', quote: '不要了' }] });
    const message = { id: 'm2', role: 'user' as const, content: 'G9 不要了' };
    const result = await updateRequirementTodoSnapshot({ model, snapshot, userMessage: message, turn: 1 });
    expect(result.status).toBe('rejected');
    expect(result.rejections[0]?.reason).toBe('unknown-id');
    expect(result.snapshot).toBe(snapshot);
  });

  it('turns malformed model output into a rejection instead of throwing', async () => {
    const { snapshot } = await seeded();
    for (const output of ['not json', { ops: [{ op: 'delete', id: 'G1', quote: 'x' }] }, { ops: 'G1' }]) {
      const model = mockJsonModel(output);
      const message = { id: 'm2', role: 'user' as const, content: 'x' };
      const result = await updateRequirementTodoSnapshot({ model, snapshot, userMessage: message, turn: 1 });
      expect(result.status).toBe('rejected');
      expect(result.rejections[0]?.reason).toBe('malformed-output');
      expect(result.snapshot).toBe(snapshot);
    }
  });

  it('cancels and never reuses a cancelled id', async () => {
    const { snapshot } = await seeded();
    const cancel = await updateRequirementTodoSnapshot({
      model: mockJsonModel({ ops: [{ op: 'cancel', id: 'G2', quote: '口径先不定' }] }),
      snapshot,
      userMessage: { id: 'm2', role: 'user', content: '口径先不定' },
      turn: 1,
    });
    const add = await updateRequirementTodoSnapshot({
      model: mockJsonModel({
        ops: [{ op: 'add', type: 'rule', priority: 'should', text: 'Use GMV', quote: '用 GMV' }],
      }),
      snapshot: cancel.snapshot,
      userMessage: { id: 'm3', role: 'user', content: '用 GMV' },
      turn: 2,
    });
    expect(add.snapshot.items.map((item) => `${item.id}:${item.status}`)).toEqual([
      'G1:open',
      'G2:cancelled',
      'G3:open',
    ]);
  });

  it('applies a message once: re-running the same message is a duplicate no-op', async () => {
    const { snapshot } = await seeded();
    const again = await updateRequirementTodoSnapshot({
      model: mockJsonModel({
        ops: [{ op: 'add', type: 'output', priority: 'must', text: 'x', quote: '输出表' }],
      }),
      snapshot,
      userMessage: first,
      turn: 0,
    });
    expect(again.status).toBe('duplicate');
    expect(again.snapshot).toBe(snapshot);
  });

  it('sends the bounded view to the model but never the evidence history', async () => {
    const { snapshot } = await seeded();
    const audited = {
      ...snapshot,
      evidenceHistory: [
        ...snapshot.evidenceHistory,
        {
          deltaId: 'old',
          op: 'add' as const,
          itemId: 'G0',
          evidence: { turnIndex: 0, messageId: 'm1', quote: 'AUDIT-ONLY' },
        },
      ],
    };
    const model = mockJsonModel({ ops: [] });
    const result = await updateRequirementTodoSnapshot({
      model,
      snapshot: audited,
      userMessage: { id: 'm2', role: 'user', content: '你好' },
      turn: 1,
    });
    expect(result.status).toBe('unchanged');
    const prompt = promptOf(model);
    const format = model.doGenerateCalls[0]?.responseFormat;
    expect(format?.type).toBe('json');
    expect(JSON.stringify(format?.type === 'json' ? format.schema : null)).toContain('"quote"');
    expect(prompt).toContain('G1 [must · output]');
    expect(prompt).not.toContain('AUDIT-ONLY');
    expect(
      buildRequirementTodoView(audited, { counter: createCharCounter(), maxTokens: 10_000 }).text,
    ).not.toContain('AUDIT-ONLY');
  });
});
