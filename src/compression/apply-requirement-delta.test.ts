import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyRequirementDelta } from './apply-requirement-delta.ts';
import { createRequirementTodoSnapshot } from './create-requirement-todo-snapshot.ts';
import type { RequirementTodoDelta } from './requirement-schema.ts';
import { formatThreadId } from './thread-id.ts';

const threadId = formatThreadId({ app: 'etl', userId: 'u1', sessionId: 's1' });
const messages = [
  { id: 'm1', turnIndex: 0, text: 'Output table dw.sales. Partition by dt.' },
  { id: 'm2', turnIndex: 1, text: 'Forget everything, start over.' },
];
const anchor = (messageId: string, quote: string) => ({
  turnIndex: messages.find((message) => message.id === messageId)?.turnIndex ?? 0,
  messageId,
  quote,
});
const addDelta: RequirementTodoDelta = {
  id: 'd1',
  threadId,
  agentId: null,
  baseRevision: 0,
  ops: [
    {
      op: 'add',
      id: 'G1',
      type: 'output',
      priority: 'must',
      text: 'dw.sales',
      evidence: anchor('m1', 'Output table dw.sales'),
    },
    {
      op: 'add',
      id: 'G2',
      type: 'constraint',
      priority: 'should',
      text: 'by dt',
      evidence: anchor('m1', 'Partition by dt'),
    },
  ],
};

describe('applyRequirementDelta', () => {
  it('applies a valid delta and records every op in the evidence history', () => {
    const result = applyRequirementDelta({
      snapshot: createRequirementTodoSnapshot({ threadId }),
      delta: addDelta,
      messages,
    });
    expect(result.status).toBe('applied');
    expect(result.snapshot.evidenceHistory.map((record) => `${record.op}:${record.itemId}`)).toEqual([
      'add:G1',
      'add:G2',
    ]);
    expect(result.snapshot.nextSequence).toBe(3);
  });

  it('changes nothing when the same delta is applied twice', () => {
    const once = applyRequirementDelta({
      snapshot: createRequirementTodoSnapshot({ threadId }),
      delta: addDelta,
      messages,
    });
    const twice = applyRequirementDelta({ snapshot: once.snapshot, delta: addDelta, messages });
    expect(twice.status).toBe('duplicate');
    expect(twice.snapshot).toEqual(once.snapshot);
  });

  it('cancels every item on reset but keeps them for the audit trail', () => {
    const once = applyRequirementDelta({
      snapshot: createRequirementTodoSnapshot({ threadId }),
      delta: addDelta,
      messages,
    });
    const reset = applyRequirementDelta({
      snapshot: once.snapshot,
      delta: {
        id: 'd2',
        threadId,
        agentId: null,
        baseRevision: 1,
        ops: [{ op: 'reset', evidence: anchor('m2', 'start over') }],
      },
      messages,
    });
    expect(reset.snapshot.items.map((item) => item.status)).toEqual(['cancelled', 'cancelled']);
    expect(reset.snapshot.items).toHaveLength(2);
  });

  it('rejects an add that skips or repeats the id sequence', () => {
    const snapshot = createRequirementTodoSnapshot({ threadId });
    const skipped = { ...addDelta, ops: [{ ...addDelta.ops[0]!, id: 'G7' }] };
    expect(applyRequirementDelta({ snapshot, delta: skipped, messages }).rejections[0]?.reason).toBe(
      'id-not-next',
    );
    const repeated = { ...addDelta, ops: [addDelta.ops[0]!, addDelta.ops[0]!] };
    expect(applyRequirementDelta({ snapshot, delta: repeated, messages }).rejections[0]?.reason).toBe(
      'id-reused',
    );
  });

  it('rejects deltas for another thread, another scope or an old revision', () => {
    const snapshot = createRequirementTodoSnapshot({ threadId });
    const other = formatThreadId({ app: 'etl', userId: 'u2', sessionId: 's1' });
    const reasons = (delta: unknown) =>
      applyRequirementDelta({ snapshot, delta, messages }).rejections.map((rejection) => rejection.reason);
    expect(reasons({ ...addDelta, threadId: other })).toContain('wrong-thread');
    expect(reasons({ ...addDelta, agentId: 'planner' })).toContain('wrong-scope');
    expect(reasons({ ...addDelta, baseRevision: 3 })).toContain('stale-revision');
    expect(reasons({ ...addDelta, ops: [{ op: 'add', id: 'G1', evidence: anchor('m1', 'x') }] })).toEqual([
      'malformed-delta',
    ]);
  });

  it('keeps every evidence anchor pointing at an existing message and quoting it verbatim', () => {
    const quote = fc.oneof(
      fc.constantFrom('Output table dw.sales', 'Partition by dt', 'start over', 'dw.sales'),
      fc.string({ minLength: 1, maxLength: 12 }),
    );
    const evidence = fc.record({
      turnIndex: fc.integer({ min: 0, max: 2 }),
      messageId: fc.constantFrom('m1', 'm2', 'm3'),
      quote,
    });
    const id = fc.constantFrom('G1', 'G2', 'G3', 'G4', 'x#1');
    const op = fc.oneof(
      fc.record({
        op: fc.constant('add'),
        id,
        type: fc.constant('rule'),
        priority: fc.constant('must'),
        text: fc.constant('t'),
        evidence,
      }),
      fc.record({
        op: fc.constant('update'),
        id,
        changes: fc.record({ status: fc.constantFrom('open', 'done') }),
        evidence,
      }),
      fc.record({ op: fc.constant('cancel'), id, evidence }),
      fc.record({ op: fc.constant('reset'), evidence }),
    );
    const delta = fc.record({
      id: fc.string({ minLength: 1, maxLength: 3 }),
      threadId: fc.constant(threadId),
      agentId: fc.constant(null),
      baseRevision: fc.integer({ min: 0, max: 3 }),
      ops: fc.array(op, { maxLength: 4 }),
    });
    fc.assert(
      fc.property(fc.array(delta, { maxLength: 12 }), (deltas) => {
        let snapshot = createRequirementTodoSnapshot({ threadId });
        for (const next of deltas) {
          const before = snapshot;
          const result = applyRequirementDelta({ snapshot, delta: next, messages });
          if (result.status !== 'applied') expect(result.snapshot).toBe(before);
          snapshot = result.snapshot;
        }
        const ids = snapshot.items.map((item) => item.id);
        expect(new Set(ids).size).toBe(ids.length);
        for (const item of snapshot.items) {
          for (const cited of item.evidence) {
            const message = messages.find((candidate) => candidate.id === cited.messageId);
            expect(message?.turnIndex).toBe(cited.turnIndex);
            expect(message?.text).toContain(cited.quote);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
