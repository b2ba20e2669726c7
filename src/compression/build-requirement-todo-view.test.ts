import fc from 'fast-check';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { createTokenCounter } from '../core/index.ts';
import { createCharCounter } from '../testing/index.ts';
import { buildRequirementTodoView, omittedFooter } from './build-requirement-todo-view.ts';
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

  it('keeps the requirements that fit under a tight budget: 60 requirements at 200 tokens', () => {
    const o200k = createTokenCounter({ name: 'o200k_base', exact: true, countText: countTokens });
    const items = Array.from({ length: 60 }, (_, index) => item(`G${index + 1}`));
    const view = buildRequirementTodoView(snapshotWith(items), { counter: o200k, maxTokens: 200 });
    expect(view.tokens).toBeLessThanOrEqual(200);
    expect(view.shownIds.length).toBeGreaterThanOrEqual(13);
    expect(view.shownIds).toEqual(items.slice(0, view.shownIds.length).map((entry) => entry.id));
    const last = view.text.split('\n').at(-1);
    expect(last).toBe(omittedFooter(view.omittedIds));
    expect(last).toMatch(/^… \d+ more not shown: G\d+, G\d+, G\d+, …$/u);
  });

  it('shows the longest prefix of requirements that fits, then adds evidence (property)', () => {
    const cost = (lines: readonly string[]) => lines.reduce((sum, line) => sum + line.length + 1, 0);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('must', 'should', 'could'), fc.boolean(), fc.nat(40)), {
          maxLength: 70,
        }),
        fc.integer({ min: 0, max: 2000 }),
        fc.nat(3),
        (specs, maxTokens, maxEvidence) => {
          const items = specs.map(([priority, done, length], index) =>
            item(`R${index + 1}`, {
              priority: priority as RequirementItem['priority'],
              status: done ? 'done' : 'open',
              text: `requirement ${'x'.repeat(length)}`,
            }),
          );
          const snapshot = snapshotWith(items);
          const view = buildRequirementTodoView(snapshot, { counter, maxTokens, maxEvidence });
          const bare = buildRequirementTodoView(snapshot, { counter, maxTokens: 1e9, maxEvidence: 0 });
          const [header = '', ...bareLines] = bare.text.split('\n');
          expect(view.tokens).toBeLessThanOrEqual(maxTokens);
          // A prefix of the view order.
          expect(view.shownIds).toEqual(bare.shownIds.slice(0, view.shownIds.length));
          const shown = view.shownIds.length;
          if (view.omittedIds.length === 0 || cost([header]) > maxTokens) return;
          // Maximal: one more requirement, as a bare line, with the footer for the rest, would not fit.
          const rest = bare.shownIds.slice(shown + 1);
          const oneMore = [
            header,
            ...bareLines.slice(0, shown + 1),
            ...(rest.length > 0 ? [omittedFooter(rest)] : []),
          ];
          expect(cost(oneMore)).toBeGreaterThan(maxTokens);
        },
      ),
      { numRuns: 300 },
    );
  });
});
