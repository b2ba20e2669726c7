import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { CtxloomError } from '../../core/errors.ts';
import { decodeSnapshotDiff, encodeSnapshotDiff } from './snapshot-diff.ts';
import {
  type ListSnapshot,
  type SnapshotItems,
  snapshotItems,
  snapshotJson,
  storedSnapshotItems,
} from './snapshot-list.ts';

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');
/** A whole `DeltaSnapshot` as the serialiser writes it. */
const whole = (value: unknown) =>
  Buffer.from(JSON.stringify({ lc: 2, type: 'delta_snapshot', value }), 'utf8');
const items = (values: readonly unknown[]) => values.map((value) => JSON.stringify(value));

/** Items whose text has every byte the list scanner must not take for structure. */
const tricky = [
  { content: 'a, b], {c}', id: 'm1' },
  { content: 'quote " and backslash \\ and \\" both', id: 'm2' },
  { content: 'ends with backslash \\', id: 'm3' },
  { content: '中文，标点：「引号」 and emoji 🧵, ok', nested: [{ a: [1, 2, { b: '],' }] }] },
  'a plain string, with a comma',
  42,
  null,
  [[], {}, ''],
];

/** Decodes a chain of stored snapshots: `stored[id]` is [type, bytes]. */
async function decodeChain(stored: Map<string, [string, Uint8Array]>, id: string): Promise<SnapshotItems> {
  const [type, bytes] = stored.get(id) as [string, Uint8Array];
  if (type === 'json') return storedSnapshotItems(bytes) as SnapshotItems;
  return decodeSnapshotDiff(bytes, (baseId) => decodeChain(stored, baseId));
}

/** The list a–d, and the text of its difference to a–e. */
function abcdPlusE(): { base: SnapshotItems; diff: string } {
  const base = { key: undefined, items: items(['a', 'b', 'c', 'd']) };
  const snapshot = { key: undefined, items: [...base.items, '"e"'] };
  return { base, diff: text(encodeSnapshotDiff({ baseId: 'a', base, snapshot }) as Uint8Array) };
}

describe('snapshot differences', () => {
  it('decode to the items they were encoded from, through a chain, without reparsing an item', async () => {
    const first = { key: undefined, items: items(tricky) };
    const second = { key: undefined, items: [...first.items, ...items([{ content: 'x,]' }, 'y'])] };
    const third = { key: undefined, items: [...second.items, ...items(['z "q" \\'])] };
    const stored = new Map<string, [string, Uint8Array]>([
      ['a', ['json', whole(tricky)]],
      ['b', ['diff', encodeSnapshotDiff({ baseId: 'a', base: first, snapshot: second }) as Uint8Array]],
      ['c', ['diff', encodeSnapshotDiff({ baseId: 'b', base: second, snapshot: third }) as Uint8Array]],
    ]);
    const decoded = await decodeChain(stored, 'c');
    expect(decoded.items).toEqual(third.items);
    // The serialised snapshot is the one the serialiser would write for the same list.
    expect(text(snapshotJson(decoded))).toBe(
      JSON.stringify({ lc: 2, type: 'delta_snapshot', value: third.items.map((item) => JSON.parse(item)) }),
    );
  });

  it('decode any JSON items, and a keyed list, exactly', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.jsonValue(), { maxLength: 12 }),
        fc.array(fc.jsonValue(), { minLength: 4, maxLength: 12 }),
        fc.option(fc.constantFrom('entries', 'a "key", with comma'), { nil: undefined }),
        async (kept, added, key) => {
          const baseValues = [...added.slice(0, 4), ...kept];
          const base = { key, items: items(baseValues) };
          const snapshot = { key, items: [...base.items, ...items(added)] };
          const diff = encodeSnapshotDiff({ baseId: 'a', base, snapshot }) as Uint8Array;
          const stored = whole(key === undefined ? baseValues : { [key]: baseValues });
          const decoded = await decodeSnapshotDiff(
            diff,
            async () => storedSnapshotItems(stored) as SnapshotItems,
          );
          expect(decoded.key).toBe(key);
          expect(decoded.items).toEqual(snapshot.items);
          expect(JSON.parse(text(snapshotJson(decoded)))).toEqual(
            JSON.parse(
              JSON.stringify({
                lc: 2,
                type: 'delta_snapshot',
                value:
                  key === undefined
                    ? snapshot.items.map((item) => JSON.parse(item))
                    : { [key]: snapshot.items.map((item) => JSON.parse(item)) },
              }),
            ),
          );
        },
      ),
      { numRuns: 200, seed: 35 },
    );
  });

  it('see that a list which dropped its oldest items shares none by its first items alone', () => {
    // A stored snapshot's first item, read without splitting the rest, is its first item's text.
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { minLength: 1, maxLength: 8 }), (values) => {
        const stored = storedSnapshotItems(whole(values)) as ListSnapshot;
        expect(stored.first).toBe(JSON.stringify(values[0]));
      }),
      { numRuns: 200, seed: 36 },
    );
    const values = [...tricky, ...tricky.map((item) => [item])];
    const base = storedSnapshotItems(whole(values)) as ListSnapshot;
    const dropped = storedSnapshotItems(whole(values.slice(1))) as ListSnapshot;
    const reads = vi.spyOn(Buffer.prototype, 'toString');
    try {
      expect(encodeSnapshotDiff({ baseId: 'a', base, snapshot: dropped })).toBeUndefined();
      // Two first items read; splitting either list reads each of its items.
      expect(reads.mock.calls.length).toBeLessThanOrEqual(2);
    } finally {
      reads.mockRestore();
    }
    // The same answer once split, and a list that keeps its first items still gets its difference.
    expect(base.items).toHaveLength(values.length);
    expect(encodeSnapshotDiff({ baseId: 'a', base, snapshot: dropped })).toBeUndefined();
    const longer = storedSnapshotItems(whole([...values, 'new'])) as ListSnapshot;
    expect(encodeSnapshotDiff({ baseId: 'a', base, snapshot: longer })).toBeDefined();
  });

  it('keep part of a base when items were removed, and check the part they keep', async () => {
    const base = { key: undefined, items: items(['a', 'b', 'c', 'd', 'e', 'f']) };
    const snapshot = { key: undefined, items: items(['a', 'b', 'c', 'd', 'x']) };
    const diff = encodeSnapshotDiff({ baseId: 'a', base, snapshot }) as Uint8Array;
    const baseBytes = whole(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(
      (await decodeSnapshotDiff(diff, async () => storedSnapshotItems(baseBytes) as SnapshotItems)).items,
    ).toEqual(snapshot.items);
    const changed = whole(['a', 'B', 'c', 'd', 'e', 'f']);
    const error = await decodeSnapshotDiff(
      diff,
      async () => storedSnapshotItems(changed) as SnapshotItems,
    ).catch((caught: unknown) => caught);
    expect(CtxloomError.is(error, 'storage-error')).toBe(true);
    expect((error as Error).message).toMatch(/snapshot base a changed/u);
  });

  it('read a whole snapshot the serialiser wrote with other spacing or escapes as the same items', async () => {
    const values = [{ content: 'é' }, { content: 'b' }, 'c', 'd'];
    const base = { key: undefined, items: items(values) };
    const snapshot = { key: undefined, items: [...base.items, ...items(['e'])] };
    const diff = encodeSnapshotDiff({ baseId: 'a', base, snapshot }) as Uint8Array;
    // Same list, other text: spaces and a \u escape JSON.stringify would not write.
    const other = Buffer.from(
      '{"lc":2,"type":"delta_snapshot","value":[{ "content": "\\u00e9" },{"content":"b"},"c","d"]}',
    );
    const decoded = await decodeSnapshotDiff(diff, async () => storedSnapshotItems(other) as SnapshotItems);
    expect(decoded.items).toEqual(snapshot.items);
  });

  it('still read differences stored with a SHA-256 check (before the CRC)', async () => {
    const base = { key: undefined, items: items(['a', 'b', 'c', 'd']) };
    const hash = createHash('sha256');
    for (const item of base.items) hash.update(item).update('\u0000');
    const header = { base: 'a', keep: 4, key: null, hash: hash.digest('base64').slice(0, 16) };
    const diff = Buffer.from(`${JSON.stringify(header)}\n["e","f"]`);
    const decoded = await decodeSnapshotDiff(
      diff,
      async () => storedSnapshotItems(whole(['a', 'b', 'c', 'd'])) as SnapshotItems,
    );
    expect(decoded.items).toEqual(items(['a', 'b', 'c', 'd', 'e', 'f']));
  });

  it('carry the SHA-256 check too, so a reader from before the CRC reads a new difference', async () => {
    const { base, diff } = abcdPlusE();
    const [line, tail] = diff.split('\n') as [string, string];
    const { crc: _crc, ...older } = JSON.parse(line) as Record<string, unknown>;
    const decoded = await decodeSnapshotDiff(
      Buffer.from(`${JSON.stringify(older)}\n${tail}`),
      async () => base,
    );
    expect(decoded.items).toEqual(items(['a', 'b', 'c', 'd', 'e']));
  });

  it('refuse a tail that is not a JSON list with a storage error, when read or split', async () => {
    const { base, diff } = abcdPlusE();
    const [line, tail] = diff.split('\n') as [string, string];
    // Without its item count (as stored before it) the tail is scanned on decode; with it, when
    // its items are asked for (the serialiser's parse of the whole list is checked in loadValue).
    const { add: _add, ...uncounted } = JSON.parse(line) as Record<string, unknown>;
    for (const header of [line, JSON.stringify(uncounted)]) {
      for (const broken of [tail.replace('["e"]', '["e"'), tail.replace('["e"]', '["e]'), '[{"e":1]']) {
        const error = await decodeSnapshotDiff(Buffer.from(`${header}\n${broken}`), async () => base)
          .then((decoded) => decoded.items)
          .catch((caught: unknown) => caught);
        expect(CtxloomError.is(error, 'storage-error')).toBe(true);
      }
    }
  });

  it('refuse a difference without a header line, or with a header that is not JSON, with a storage error', async () => {
    const { base, diff } = abcdPlusE();
    const tail = diff.slice(diff.indexOf('\n') + 1);
    for (const broken of [tail, `{"base":"a",\n${tail}`, `\n${tail}`, '']) {
      const error = await decodeSnapshotDiff(Buffer.from(broken), async () => base).catch(
        (caught: unknown) => caught,
      );
      expect(CtxloomError.is(error, 'storage-error')).toBe(true);
    }
  });

  it('parse a stored whole snapshot of another shape the slow way, and refuse what is no list snapshot', () => {
    // A key whose escape is not JSON: not thrown as a raw SyntaxError, refused by the slow path.
    expect(
      storedSnapshotItems(Buffer.from('{"lc":2,"type":"delta_snapshot","value":{"\\x":["a"]}}')),
    ).toBeUndefined();
    expect(storedSnapshotItems(Buffer.from('{"type":"delta_snapshot","lc":2,"value":["a"]}'))?.items).toEqual(
      ['"a"'],
    );
    expect(
      storedSnapshotItems(Buffer.from('{"lc":2,"type":"delta_snapshot","value":{"a":1,"b":[]}}')),
    ).toBeUndefined();
    expect(storedSnapshotItems(Buffer.from('[1,2]'))).toBeUndefined();
    // Two keys: the first list closes before the value does.
    expect(
      storedSnapshotItems(Buffer.from('{"lc":2,"type":"delta_snapshot","value":{"a":[1],"b":[2]}}')),
    ).toBeUndefined();
    expect(snapshotItems('{"lc":2,"type":"delta_snapshot","value":{"entries":["x"]}}')).toEqual({
      key: 'entries',
      items: ['"x"'],
    });
  });
});
