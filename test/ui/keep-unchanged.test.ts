import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keepUnchanged } from '../../web/src/keep-unchanged.ts';

interface Item {
  id: string;
  body: unknown;
}

/** A message of any shape, as the examples below mix them. */
type Loose = { id: string } & Record<string, unknown>;

/** JSON's values only: plain objects, no `-0`, no `undefined` (what a reload parses). */
const json = fc.jsonValue().map((value) => JSON.parse(JSON.stringify(value)) as unknown);

/** A history, and the same history reloaded: each entry a copy, an edited copy or a new message. */
const histories = fc
  .uniqueArray(
    fc.record(
      { id: fc.constantFrom('m1', 'm2', 'm3', 'm4', 'm5', 'm6'), body: json },
      { noNullPrototype: true },
    ),
    {
      selector: (item) => item.id,
      maxLength: 6,
    },
  )
  .chain((previous) =>
    fc.tuple(
      fc.constant(previous),
      fc.array(
        fc.tuple(fc.nat(), fc.constantFrom('copy', 'edit', 'new'), json).map(([at, kind, body]): Item => {
          const source = previous[at % Math.max(1, previous.length)];
          if (source === undefined || kind === 'new') return { id: `new-${at % 4}`, body };
          return kind === 'copy' ? structuredClone(source) : { id: source.id, body };
        }),
        { maxLength: 8 },
      ),
    ),
  );

describe('keepUnchanged', () => {
  it('keeps the previous object of every message whose id and content are unchanged, and takes the rest from the reload', () => {
    const user = {
      id: 'm1',
      role: 'user',
      parts: [{ type: 'text', text: 'hi' }],
      metadata: { storedIds: ['m1'] },
    };
    const answer = { id: 'm2', role: 'assistant', parts: [{ type: 'text', text: '# Hello' }], metadata: {} };
    const reloadedAnswer = { ...structuredClone(answer), metadata: { storedIds: ['m2'] } };
    const question = { id: 'm3', role: 'user', parts: [{ type: 'text', text: 'and?' }], metadata: {} };
    const result = keepUnchanged([user, answer], [structuredClone(user), reloadedAnswer, question]);
    expect(result[0]).toBe(user);
    expect(result[1]).toBe(reloadedAnswer);
    expect(result[2]).toBe(question);
  });

  it('returns the previous array itself when the reload changed nothing', () => {
    const previous = [
      { id: 'm1', parts: [{ type: 'text', text: '第一' }] },
      { id: 'm2', parts: [] },
    ];
    expect(keepUnchanged(previous, structuredClone(previous))).toBe(previous);
    // The same messages in another order are kept, in the reload's order, in a new array.
    const reordered = keepUnchanged(previous, structuredClone(previous).reverse());
    expect(reordered).not.toBe(previous);
    expect(reordered[0]).toBe(previous[1]);
    expect(reordered[1]).toBe(previous[0]);
  });

  it('reads a property set to undefined as absent, as JSON does', () => {
    const streamed = { id: 'm1', parts: [{ type: 'text', text: 'x', providerMetadata: undefined }] };
    const reloaded = { id: 'm1', parts: [{ type: 'text', text: 'x' }] };
    expect(keepUnchanged([streamed], [reloaded])[0]).toBe(streamed);
    expect(keepUnchanged([reloaded], [streamed])[0]).toBe(reloaded);
    const changed = { id: 'm1', parts: [{ type: 'text', text: 'x', state: 'done' }] };
    expect(keepUnchanged<Loose>([streamed], [changed])[0]).toBe(changed);
  });

  it('tells arrays from objects with the same keys, and a missing element from null', () => {
    const list = { id: 'm1', body: ['a'] };
    const record = { id: 'm1', body: { 0: 'a' } };
    expect(keepUnchanged<Loose>([list], [record])[0]).toBe(record);
    const short = { id: 'm1', body: [1, 2] };
    const padded = { id: 'm1', body: [1, 2, null] };
    expect(keepUnchanged([short], [padded])[0]).toBe(padded);
  });

  it('always equals the reload, each message being the previous object exactly when it is deep-equal to it', () => {
    fc.assert(
      fc.property(histories, ([previous, next]) => {
        const before = structuredClone({ previous, next });
        const result = keepUnchanged(previous, next);
        expect(result).toEqual(next);
        for (const [index, message] of result.entries()) {
          const old = previous.find((item) => item.id === message.id);
          const reloaded = next[index];
          expect(message).toBe(old !== undefined && isDeepStrictEqual(old, reloaded) ? old : reloaded);
        }
        // Neither input is changed.
        expect({ previous, next }).toEqual(before);
      }),
    );
  });
});
