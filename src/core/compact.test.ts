import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ContextBlock } from './block.ts';
import { droppedHistory } from './compact.ts';
import type { Message } from './message.ts';
import type { DroppedBlock } from './select.ts';

const reason = { type: 'over-budget', grantTokens: 10 } as const;

function entry(
  index: number,
  id: string,
  type: DroppedBlock['reason']['type'] = 'over-budget',
): DroppedBlock {
  const message: Message = { id, role: 'user', content: id };
  const block: ContextBlock = {
    id: `history:${id}`,
    layer: 'history',
    source: 'history',
    content: id,
    tokens: 1,
    priority: 0.5,
    fingerprint: id,
    metadata: { message, index, error: false },
  };
  return { block, reason: type === 'over-budget' ? reason : { type: 'share-disabled' } };
}

describe('droppedHistory', () => {
  it('lists the messages dropped for room by index, stably, whatever the order and numbering of the drops', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ index: fc.integer({ min: 0, max: 60 }), forRoom: fc.boolean() }), {
          maxLength: 40,
        }),
        (raw) => {
          const dropped = raw.map((item, order) =>
            entry(item.index, `m${order}`, item.forRoom ? 'over-budget' : 'share-disabled'),
          );
          const expected = raw
            .map((item, order) => ({ ...item, order }))
            .filter((item) => item.forRoom)
            .sort((a, b) => a.index - b.index || a.order - b.order)
            .map((item) => `m${item.order}`);
          expect(droppedHistory(dropped).map((message) => message.id)).toEqual(expected);
        },
      ),
    );
  });

  it('sorts drops whose index is not a position (a fraction) like the others', () => {
    const dropped = [entry(2.5, 'c'), entry(0, 'a'), entry(1, 'b')];
    expect(droppedHistory(dropped).map((message) => message.id)).toEqual(['a', 'b', 'c']);
  });
});
