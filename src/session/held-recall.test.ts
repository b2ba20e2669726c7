import { describe, expect, it } from 'vitest';
import type { CompiledContext } from '../core/index.ts';
import { nextHold, type TurnRecall } from './turn-recall.ts';

/** A compile that sent these recalled messages, `tokens` each. */
function sent(ids: readonly string[], tokens = 99): CompiledContext {
  return {
    kept: ids.map((id) => ({ layer: 'recall__context', tokens, metadata: { messageId: id } })),
  } as unknown as CompiledContext;
}

const whole = ['a', 'b', 'c', 'd', 'e'];

describe('the held recall (decision 063)', () => {
  it('is made when a whole recall was sent whole, and not when the call dropped part of it', () => {
    const recall: TurnRecall = { throughMessageId: 'm9', held: undefined, outcome: { held: false, whole } };
    expect(nextHold({ recall, compiled: sent(whole), current: undefined, stepTokens: 0 })).toEqual({
      throughMessageId: 'm9',
      whole,
      ids: whole,
    });
    expect(
      nextHold({ recall, compiled: sent(['a', 'b']), current: undefined, stepTokens: 0 }),
    ).toBeUndefined();
    const partial: TurnRecall = { ...recall, outcome: { held: false, whole: undefined } };
    expect(
      nextHold({ recall: partial, compiled: sent(whole), current: undefined, stepTokens: 0 }),
    ).toBeUndefined();
  });

  it('only shrinks: a step that had to drop held messages drops as many more as its steps took', () => {
    const held = { throughMessageId: 'm9', whole, ids: whole };
    const recall: TurnRecall = { throughMessageId: 'm9', held, outcome: { held: true, whole: undefined } };
    // Nothing dropped: the hold stays as it is, whatever the steps cost.
    expect(nextHold({ recall, compiled: sent(whole), current: held, stepTokens: 500 })?.ids).toEqual(whole);
    // The step dropped `e` (lowest-ranked); 150 tokens of steps: `d` and `c` go too (100 each).
    expect(
      nextHold({ recall, compiled: sent(['a', 'b', 'c', 'd']), current: held, stepTokens: 150 })?.ids,
    ).toEqual(['a', 'b']);
    // The turn that made the hold continues it at its steps (same `whole`), rather than ending it.
    const made: TurnRecall = { throughMessageId: 'm9', held: undefined, outcome: { held: false, whole } };
    expect(
      nextHold({ recall: made, compiled: sent(['a', 'b', 'c']), current: held, stepTokens: 50 })?.ids,
    ).toEqual(['a', 'b']);
  });
});
