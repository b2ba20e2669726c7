import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCharCounter } from '../testing/index.ts';
import { buildRequirementTodoView } from './build-requirement-todo-view.ts';
import { createRequirementTodoSnapshot } from './create-requirement-todo-snapshot.ts';
import type { RequirementItem, RequirementTodoSnapshot } from './requirement-schema.ts';
import { formatThreadId } from './thread-id.ts';

const counter = createCharCounter();
const threadId = formatThreadId({ app: 'etl', userId: 'u1', sessionId: 's1' });

function snapshotWith(items: RequirementItem[]): RequirementTodoSnapshot {
  return {
    ...createRequirementTodoSnapshot({ threadId }),
    items,
    revision: 1,
    nextSequence: items.length + 1,
  };
}
const item = (id: string, overrides: Partial<RequirementItem> = {}): RequirementItem => ({
  id,
  type: 'rule',
  priority: 'should',
  status: 'open',
  text: `requirement ${id}`,
  evidence: [
    { turnIndex: 0, messageId: 'm0', quote: `first words of ${id}` },
    { turnIndex: 3, messageId: 'm3', quote: `later words of ${id}` },
  ],
  ...overrides,
});

describe('buildRequirementTodoView', () => {
  it('lists must before should, hides cancelled items and shows only the newest evidence', () => {
    const view = buildRequirementTodoView(
      snapshotWith([item('G1'), item('G2', { priority: 'must' }), item('G3', { status: 'cancelled' })]),
      { counter, maxTokens: 1000, maxEvidence: 1 },
    );
    expect(view.shownIds).toEqual(['G2', 'G1']);
    expect(view.text).toContain('later words of G2');
    expect(view.text).not.toContain('first words of G2');
    expect(view.text).not.toContain('G3');
  });

  it('drops evidence before requirements and names what it left out', () => {
    const snapshot = snapshotWith([item('G1'), item('G2'), item('G3')]);
    const full = buildRequirementTodoView(snapshot, { counter, maxTokens: 10_000 });
    const tight = buildRequirementTodoView(snapshot, { counter, maxTokens: full.tokens - 20 });
    expect(tight.shownIds).toEqual(['G1', 'G2', 'G3']);
    expect(tight.text).not.toContain('later words of G3');
    const tighter = buildRequirementTodoView(snapshot, { counter, maxTokens: 140 });
    expect(tighter.omittedIds.length).toBeGreaterThan(0);
    expect(tighter.text).toContain(`not shown: ${tighter.omittedIds.join(', ')}`);
  });

  it('never exceeds maxTokens', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 0, max: 800 }),
        fc.nat(3),
        (count, maxTokens, maxEvidence) => {
          const snapshot = snapshotWith(Array.from({ length: count }, (_, index) => item(`G${index + 1}`)));
          const view = buildRequirementTodoView(snapshot, { counter, maxTokens, maxEvidence });
          expect(view.tokens).toBeLessThanOrEqual(maxTokens);
          expect(view.tokens).toBe(view.text.length);
          expect(view.shownIds.length + view.omittedIds.length).toBe(count);
        },
      ),
    );
  });
});
