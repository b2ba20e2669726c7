import {
  AIMessage,
  AIMessageChunk,
  type BaseMessage,
  HumanMessage,
  RemoveMessage,
} from '@langchain/core/messages';
import { messagesDeltaReducer, REMOVE_ALL_MESSAGES } from '@langchain/langgraph';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sessionMessagesReducer } from './messages-reducer.ts';

const shape = (messages: readonly BaseMessage[]) =>
  messages.map((message) => [message.constructor.name, message.id, message.content]);

/** A write as a node makes one: a message, several, a removal, a chunk, or a message-like object. */
const write = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .integer({ min: 0, max: 12 })
      .map((id) => new HumanMessage({ id: `m${id}`, content: `h${id}` })),
  },
  {
    weight: 3,
    arbitrary: fc
      .array(fc.integer({ min: 0, max: 12 }), { minLength: 0, maxLength: 3 })
      .map((ids) => ids.map((id) => new AIMessage({ id: `m${id}`, content: `a${id}` }))),
  },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 12 }).map((id) => new RemoveMessage({ id: `m${id}` })) },
  { weight: 1, arbitrary: fc.constant(new RemoveMessage({ id: REMOVE_ALL_MESSAGES })) },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 0, max: 12 })
      .map((id) => new AIMessageChunk({ id: `m${id}`, content: 'c' })),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 0, max: 12 }).map((id) => ({ role: 'user', content: 'd', id: `m${id}` })),
  },
);

describe('sessionMessagesReducer', () => {
  it('reduces as messagesDeltaReducer does, replays of growing writes and updates on its results alike', () => {
    const operation = fc.oneof(
      fc.record({ replay: fc.integer({ min: 0, max: 40 }) }),
      fc.record({
        update: fc.array(write, { minLength: 1, maxLength: 3 }),
        of: fc.nat(),
        other: fc.boolean(),
      }),
    );
    fc.assert(
      fc.property(
        fc.array(write, { minLength: 1, maxLength: 30 }),
        fc.array(operation, { minLength: 1, maxLength: 10 }),
        fc.boolean(),
        (initial, operations, seeded) => {
          let other = false;
          const readBack = (item: unknown): unknown =>
            item instanceof HumanMessage || item instanceof AIMessage
              ? new (item.constructor as typeof HumanMessage)({
                  id: item.id as string,
                  content: other ? `${String(item.content)} (edited)` : item.content,
                })
              : item;
          const seed: BaseMessage[] = seeded ? [new HumanMessage({ id: 's0', content: 'seed' })] : [];
          // The thread's writes: a node's update is written after the ones it was made on.
          const writes: unknown[] = [...initial];
          const results: BaseMessage[][] = [];
          for (const step of operations) {
            const before = results.map(shape);
            if ('replay' in step) {
              // A read of an older or newer checkpoint: a prefix of the same shared writes.
              const shared = writes.slice(0, Math.max(1, Math.min(step.replay, writes.length)));
              const state = seeded ? seed : [];
              const got = sessionMessagesReducer(state, shared);
              expect(shape(got)).toEqual(shape(messagesDeltaReducer(state, shared as never)));
              results.push(got);
            } else if (results.length > 0) {
              other = step.other;
              const on = results[step.of % results.length] as BaseMessage[];
              const got = sessionMessagesReducer(on, step.update);
              expect(shape(got)).toEqual(shape(messagesDeltaReducer(on, step.update as never)));
              results.push(got);
              // Stored and read back: a copy of each message, now and then one that says otherwise.
              writes.push(
                ...step.update.map((item) => (Array.isArray(item) ? item.map(readBack) : readBack(item))),
              );
            }
            // Nothing returned before is changed.
            expect(results.slice(0, before.length).map(shape)).toEqual(before);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('extends the last replay from the same base instead of reducing every write again', () => {
    let reads = 0;
    const counted = (message: BaseMessage) => {
      const id = message.id;
      Object.defineProperty(message, 'id', {
        get: () => {
          reads++;
          return id;
        },
      });
      return message;
    };
    const writes: BaseMessage[][] = [];
    for (let turn = 0; turn < 50; turn++) {
      writes.push([
        counted(new HumanMessage({ id: `h${turn}`, content: `q${turn}` })),
        counted(new AIMessage({ id: `a${turn}`, content: `r${turn}` })),
      ]);
    }
    const first = sessionMessagesReducer([], writes.slice(0, 40));
    reads = 0;
    const next = sessionMessagesReducer([], writes);
    // Only the ten new writes' messages were looked at (a full reduction reads all 100 ids, twice).
    expect(reads).toBeLessThanOrEqual(2 * 20);
    expect(shape(next)).toEqual(shape(messagesDeltaReducer([], writes as never)));
    expect(next.slice(0, 80)).toEqual(first);
    expect(first).toHaveLength(80);
    // A node's update appends to that result and leaves it as it was.
    reads = 0;
    const update = counted(new AIMessage({ id: 'x', content: 'x' }));
    const updated = sessionMessagesReducer(next, [update]);
    expect(reads).toBeLessThanOrEqual(2);
    expect(updated).toHaveLength(101);
    expect(next).toHaveLength(100);
    // The next read replays the update's write (decoded anew) after the same writes: appended too.
    reads = 0;
    const decoded = counted(new AIMessage({ id: 'x', content: 'x' }));
    const replayed = sessionMessagesReducer([], [...writes, decoded]);
    expect(reads).toBeLessThanOrEqual(2);
    expect(shape(replayed)).toEqual(shape(updated));
    // The node's own message stands for its copy read back; a copy that says otherwise is itself.
    expect(replayed[100]).toBe(update);
    const edited = new AIMessage({ id: 'x', content: 'y' });
    expect(sessionMessagesReducer([], [...writes, edited])[100]).toBe(edited);
  });
});
