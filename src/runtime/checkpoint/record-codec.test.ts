import { deflateRawSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CtxloomError } from '../../core/errors.ts';
import { decodeId, encodeId } from './id-codec.ts';
import { decodeRecord, dictionaryKind, encodeRecord, isChained, recordCount } from './record-codec.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('encodeRecord', () => {
  it('round-trips a header and payloads, compressed or not', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.json(),
        fc.array(fc.uint8Array({ maxLength: 400 }), { maxLength: 5 }),
        fc.constantFrom('deflate' as const, 'none' as const),
        async (json, payloads, compression) => {
          const header = JSON.parse(json) as unknown;
          const decoded = decodeRecord(await encodeRecord({ header, payloads, compression }));
          expect(decoded.header).toEqual(header);
          expect(decoded.payloads.map((payload) => [...payload])).toEqual(
            payloads.map((payload) => [...payload]),
          );
        },
      ),
      { numRuns: 200, seed: 4 },
    );
  });

  it('compresses a record against a similar base to a fraction of its size alone', async () => {
    // Text without internal repetition: only the base can make it small.
    const letters = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz ');
    const [text = ''] = fc.sample(fc.string({ unit: letters, minLength: 400, maxLength: 400 }), {
      numRuns: 1,
      seed: 7,
    });
    const base = bytes(`{"channel_versions":{"messages":12,"turns":12},"text":"${text}"}`);
    const header = { channel_versions: { messages: 13, turns: 13 }, text };
    const alone = await encodeRecord({ header, payloads: [], compression: 'deflate' });
    const withBase = await encodeRecord({ header, payloads: [], compression: 'deflate', dictionary: base });
    expect(isChained(withBase)).toBe(true);
    expect(withBase.byteLength).toBeLessThan(alone.byteLength / 2);
    expect(decodeRecord(withBase, base).header).toEqual(header);
  });

  it('refuses to decode against a base that changed since the record was written', async () => {
    const base = bytes('{"a":1,"b":"some base text that the record refers to"}');
    const record = await encodeRecord({
      header: { a: 1, b: 'some base text that the record refers to' },
      payloads: [],
      compression: 'deflate',
      dictionary: base,
    });
    expect(() => decodeRecord(record, bytes('{"a":2}'))).toThrow(/chain changed/);
    expect(() => decodeRecord(record)).toThrow(/needs its chain/);
  });

  it('stores a count outside the compressed body, readable without the dictionary', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.boolean(), async (count, chained) => {
        const dictionary = chained ? bytes('{"channel":"messages","text":"hello"}') : undefined;
        const record = await encodeRecord({
          header: { channel: 'messages', text: 'hello again' },
          payloads: [bytes('payload')],
          compression: 'deflate',
          count,
          ...(dictionary === undefined ? {} : { dictionary }),
        });
        expect(recordCount(record)).toBe(count);
        expect(decodeRecord(record, dictionary).header).toEqual({ channel: 'messages', text: 'hello again' });
      }),
      { numRuns: 100, seed: 9 },
    );
  });
});

describe('large self-contained records', () => {
  // Words in a random order: text that compresses like prose, with one long repeat.
  const words = 'the of and to in we you it was that for on with my so what about how'.split(' ');
  const [prose = ''] = fc.sample(
    fc
      .array(fc.constantFrom(...words), { minLength: 12_000, maxLength: 12_000 })
      .map((list) => list.join(' ')),
    { numRuns: 1, seed: 11 },
  );
  const quote = prose.slice(0, 20_000);
  const header = { values: [['messages', 'json']] };
  const payloads = [bytes(prose), bytes(quote)];

  it('are stored with Brotli, which reaches a repeat DEFLATE cannot see, and read back exactly', async () => {
    const record = await encodeRecord({ header, payloads, compression: 'deflate' });
    expect(record[0]).toBe(4);
    const decoded = decodeRecord(record);
    expect(decoded.header).toEqual(header);
    expect(Buffer.from(decoded.payloads[1] ?? []).toString()).toBe(quote);
    // The repeat lies beyond DEFLATE's 32 KiB window.
    expect(record.byteLength).toBeLessThan(deflateRawSync(decoded.body).byteLength * 0.8);
  });

  it('over 1 MiB (a long call log’s snapshot, compressed with less effort) read back exactly', async () => {
    // 4.5 MiB of words from a seeded generator, then its first 256 KiB again.
    let state = 7;
    const next = () => {
      state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
      return state >>> 16;
    };
    const parts: string[] = [];
    let length = 0;
    while (length < 4.5 * 1024 * 1024) {
      const word = words[next() % words.length] as string;
      parts.push(word);
      length += word.length + 1;
    }
    const long = parts.join(' ');
    const repeat = long.slice(0, 256 * 1024);
    const record = await encodeRecord({
      header,
      payloads: [bytes(long), bytes(repeat)],
      compression: 'deflate',
    });
    expect(record[0]).toBe(4);
    expect(record.byteLength).toBeLessThan(long.length / 3);
    const decoded = decodeRecord(record);
    expect(decoded.header).toEqual(header);
    expect(Buffer.from(decoded.payloads[0] ?? []).toString()).toBe(long);
    expect(Buffer.from(decoded.payloads[1] ?? []).toString()).toBe(repeat);
  });

  it('are compressed off the event loop: other work runs while Brotli does', async () => {
    let ran = false;
    setImmediate(() => {
      ran = true;
    });
    // A synchronous compression would finish in this turn of the loop, before the immediate.
    const record = await encodeRecord({ header, payloads, compression: 'deflate' });
    expect(record[0]).toBe(4);
    expect(ran).toBe(true);
  });

  it('leave small self-contained records in format 3, which older readers read; chained ones are format 5', async () => {
    expect(
      (await encodeRecord({ header, payloads: [bytes(quote.slice(0, 4000))], compression: 'deflate' }))[0],
    ).toBe(3);
    expect((await encodeRecord({ header, payloads, compression: 'none' }))[0]).toBe(3);
    const chained = await encodeRecord({
      header,
      payloads,
      compression: 'deflate',
      dictionary: bytes(quote),
    });
    expect(chained[0]).toBe(5);
    expect(isChained(chained)).toBe(true);
    expect(dictionaryKind(chained)).toBe('history');
    const legacy = Buffer.from(chained);
    legacy[0] = 3;
    expect(dictionaryKind(legacy)).toBe('windows');
    const unchained = Buffer.from(await encodeRecord({ header, payloads: [], compression: 'deflate' }));
    unchained[0] = 5;
    expect(() => decodeRecord(unchained)).toThrow(/not a valid record/);
  });

  it('refuse a format number that does not match the Brotli flag', async () => {
    const record = Buffer.from(await encodeRecord({ header, payloads, compression: 'deflate' }));
    record[0] = 3;
    expect(() => decodeRecord(record)).toThrow(/not a valid record/);
    const small = Buffer.from(await encodeRecord({ header, payloads: [], compression: 'deflate' }));
    small[0] = 4;
    expect(() => decodeRecord(small)).toThrow(/not a valid record/);
  });
});

const damagedBase = bytes('{"messages":"some earlier text the record was deflated against, twice over"}');
const damagedRecord = await encodeRecord({
  header: { a: 1, note: 'some earlier text the record was deflated against, and more of its own' },
  payloads: [bytes('a payload of its own, long enough to compress somewhat, somewhat, somewhat')],
  compression: 'deflate',
  dictionary: damagedBase,
});

describe('decodeRecord on damaged bytes', () => {
  const base = damagedBase;
  const record = damagedRecord;

  it('answers every flipped byte and every truncation with a storage error, never a raw one', () => {
    for (let index = 0; index < record.byteLength; index += 1) {
      for (const damaged of [Buffer.from(record), Buffer.from(record.subarray(0, index))]) {
        if (damaged.byteLength === record.byteLength) damaged[index] = (damaged[index] ?? 0) ^ 0x5a;
        let error: unknown;
        try {
          decodeRecord(damaged, base);
        } catch (caught) {
          error = caught;
        }
        // A flip may leave a record that still decodes (a flag bit): then it decodes to itself or fails typed.
        if (error !== undefined) expect(CtxloomError.is(error, 'storage-error'), String(error)).toBe(true);
      }
    }
  });
});

describe('encodeId', () => {
  const uuid = fc.uuid({ version: 6 }).map((id) => id.toLowerCase());

  it('stores a UUID in 16 bytes and round-trips any id', () => {
    fc.assert(
      fc.property(
        fc.oneof(uuid, fc.string({ unit: 'grapheme' }), fc.string({ minLength: 15, maxLength: 15 })),
        (id) => {
          expect(decodeId(encodeId(id))).toBe(id);
        },
      ),
    );
    expect(encodeId('1f1e62cd-9cc4-6b30-802e-b3909e197130').byteLength).toBe(16);
    expect(decodeId(encodeId('ff000000-0000-6000-8000-000000000000'))).toBe(
      'ff000000-0000-6000-8000-000000000000',
    );
    expect(decodeId(encodeId('fifteen-bytes!!'))).toBe('fifteen-bytes!!');
  });

  it('keeps the string order of UUIDs as byte order', () => {
    fc.assert(
      fc.property(uuid, uuid, (a, b) => {
        const byString = a < b ? -1 : a > b ? 1 : 0;
        expect(Math.sign(Buffer.compare(encodeId(a), encodeId(b)))).toBe(byString);
      }),
    );
  });
});
