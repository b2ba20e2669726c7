import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../core/deep-freeze.ts';
import type { Message, TokenCounter } from '../core/index.ts';
import { createCharCounter } from '../testing/index.ts';
import { costOfFirst, derivedFromFirst, messagesById, positionIn } from './conversation-positions.ts';

/** A message per id (`frozen`: as a store hands it out; else one whose cost may change). */
function message(id: string, text: string, frozen: boolean): Message {
  const made: Message = { id, role: 'user', content: text };
  if (frozen) deepFreeze(made);
  return made;
}

const cost = (counter: TokenCounter, item: Message) => counter.countText(String(item.content)) + 1;

describe('conversation index', () => {
  it('answers every read of a conversation that grows, shrinks or has a message replaced as a scan of it does', () => {
    fc.assert(
      fc.property(
        // Messages (ids may repeat), then reads: a length, and maybe a position whose message is
        // replaced by a copy (the turn's message with its references, stored on the next turn).
        fc.array(
          fc.record({
            id: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g'),
            text: fc.string(),
            frozen: fc.boolean(),
          }),
          { minLength: 1, maxLength: 30 },
        ),
        fc.array(fc.record({ length: fc.nat(30), copy: fc.option(fc.nat(30)) }), {
          minLength: 1,
          maxLength: 8,
        }),
        (specs, reads) => {
          const all = specs.map((spec) => message(spec.id, spec.text, spec.frozen));
          const counter = createCharCounter();
          const earlier: { conversation: Message[]; byId: ReturnType<typeof messagesById> }[] = [];
          for (const read of reads) {
            // A new array each read, with the same message objects but the copied one.
            const conversation = all.slice(0, Math.min(read.length, all.length));
            const at = read.copy ?? -1;
            if (at > 0 && at < conversation.length) {
              const replaced = conversation[at] as Message;
              conversation[at] = message(replaced.id, `${String(replaced.content)} again`, at % 2 === 0);
            }
            earlier.push({ conversation, byId: messagesById(conversation) });
            for (let count = 0; count <= conversation.length + 1; count++) {
              const direct = conversation.slice(0, count).reduce((sum, item) => sum + cost(counter, item), 0);
              expect(costOfFirst(conversation, count, counter, cost)).toBe(direct);
            }
            // Every read's lookups, the earlier ones' too (the index has moved on since).
            for (const { conversation: read, byId } of earlier) {
              for (const id of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'z']) {
                const first = read.findIndex((item) => item.id === id);
                expect(byId.get(id)).toEqual(
                  first < 0 ? undefined : { message: read[first], position: first + 1 },
                );
              }
            }
            for (const id of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'z'])
              expect(positionIn(conversation, id)).toBe(conversation.findIndex((item) => item.id === id) + 1);
          }
        },
      ),
      { numRuns: 300, seed: 83 },
    );
  });

  it('reads a conversation another array moved the index past once, however many ids it is asked for', () => {
    const first = Array.from({ length: 500 }, (_, at) => message(`m${at}`, `text ${at}`, true));
    let reads = 0;
    // Counts the reads of its positions (a scan per lookup would read it whole each time).
    const conversation = new Proxy(first, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/u.test(key)) reads++;
        return Reflect.get(target, key, receiver);
      },
    });
    const byId = messagesById(conversation);
    // The next turn's array: the last message replaced by its stored copy, one more after it.
    const next = [...first.slice(0, -1), message('m499', 'text 499', true), message('m500', 'new', true)];
    expect(positionIn(next, 'm500')).toBe(501);
    reads = 0;
    for (let at = 0; at < 200; at++) expect(byId.get(`absent-${at}`)).toBeUndefined();
    expect(byId.get('m499')).toEqual({ message: first[499], position: 500 });
    expect(byId.get('m500')).toBeUndefined();
    expect(byId.get('m7')?.position).toBe(8);
    expect(reads).toBeLessThanOrEqual(first.length + 10);
  });

  it('sums a message that may change at each call, and a stored one once', () => {
    const counter = createCharCounter();
    const live = message('b', 'two', false);
    const conversation = [message('a', 'one', true), live, message('c', 'three', true)];
    let calls = 0;
    const counting = (using: TokenCounter, item: Message) => {
      calls++;
      return cost(using, item);
    };
    expect(costOfFirst(conversation, 3, counter, counting)).toBe(4 + 4 + 6);
    calls = 0;
    (live as { content: string }).content = 'twenty';
    expect(costOfFirst([...conversation], 3, counter, counting)).toBe(4 + 7 + 6);
    // The stored first message is summed once; from the one that may change, each call.
    expect(calls).toBe(2);
  });

  it('keeps a derived value for the arrays that extend the conversation, not for one too short for it', () => {
    const conversation = ['a', 'b', 'c'].map((id) => message(id, id, true));
    const key = {};
    let made = 0;
    const make = () => ++made;
    expect(derivedFromFirst(conversation, key, 2, make)).toBe(1);
    expect(derivedFromFirst([...conversation, message('d', 'd', true)], key, 2, make)).toBe(1);
    expect(derivedFromFirst(conversation, key, 3, make)).toBe(2);
    expect(derivedFromFirst(conversation.slice(0, 1), key, 2, make)).toBe(3);
    expect(derivedFromFirst([message('x', 'x', true)], key, 1, make)).toBe(4);
    // A read whose second message is another object (a copy): the value over two messages is
    // made again; one over the first message only is kept.
    const other = {};
    expect(derivedFromFirst(conversation, other, 2, make)).toBe(5);
    expect(derivedFromFirst(conversation, key, 1, make)).toBe(6);
    const copied = [conversation[0] as Message, message('b', 'b again', true), conversation[2] as Message];
    expect(derivedFromFirst(copied, other, 2, make)).toBe(7);
    expect(derivedFromFirst([...copied], other, 2, make)).toBe(7);
    expect(derivedFromFirst(copied, key, 1, make)).toBe(6);
  });
});
