import { Buffer } from 'node:buffer';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { brotliCompressSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { CtxloomError } from '../core/index.ts';
import { ENCODING_NAMES } from './encodings.ts';
import { parseVocabulary, readVocabularyFile, utf16LengthOf } from './vocabulary-file.ts';

const require = createRequire(import.meta.url);
const utf8 = new TextEncoder();

describe('the shipped vocabulary files', () => {
  // gpt-tokenizer lists a token as bytes when a default TextDecoder does not round-trip it,
  // which includes the eight tokens starting with a byte order mark (EF BB BF): the decoder
  // drops the BOM. They are valid UTF-8, so the shipped file gives them a text, as tiktoken
  // matches them (`'\uFEFFusing'` is one token there and here; gpt-tokenizer counts 3).
  const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const textOf = (bytes: Uint8Array) => {
    try {
      return strict.decode(bytes);
    } catch {
      return undefined;
    }
  };

  it.each(ENCODING_NAMES)('equal gpt-tokenizer’s %s rank list token by token', (encoding) => {
    const module = require(`gpt-tokenizer/bpeRanks/${encoding}`) as { default?: unknown };
    const ranks = (module.default ?? module) as readonly (string | readonly number[])[];
    const vocabulary = readVocabularyFile(encoding);
    expect(vocabulary.starts.length - 1).toBe(ranks.length);
    const mismatches: number[] = [];
    const textOnlyHere: number[] = [];
    for (let rank = 0; rank < ranks.length; rank++) {
      const expected = ranks[rank] as string | readonly number[];
      const expectedBytes = typeof expected === 'string' ? utf8.encode(expected) : Uint8Array.from(expected);
      const actualBytes = vocabulary.bytes.subarray(vocabulary.starts[rank], vocabulary.starts[rank + 1]);
      const text = vocabulary.texts[rank];
      if (Buffer.compare(actualBytes, expectedBytes) !== 0 || text !== textOf(expectedBytes))
        mismatches.push(rank);
      else if (typeof expected !== 'string' && text !== undefined) textOnlyHere.push(rank);
    }
    expect(mismatches.slice(0, 10)).toEqual([]);
    for (const rank of textOnlyHere) expect(vocabulary.texts[rank]?.startsWith('\uFEFF')).toBe(true);
  });
});

describe('readVocabularyFile', () => {
  const directory = mkdtempSync(join(tmpdir(), 'ctxloom-vocab-'));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));
  const write = (name: string, content: Uint8Array) => {
    const file = join(directory, name);
    writeFileSync(file, content);
    return pathToFileURL(file);
  };
  const vocabularyBytes = (header: string, tokens: readonly Uint8Array[]) =>
    Buffer.concat([
      Buffer.from(`${header}\n`),
      ...tokens.flatMap((token) => [Buffer.from([token.length]), token]),
    ]);

  it('reads tokens, holes and non-UTF-8 tokens in rank order', () => {
    const file = write(
      'small.br',
      brotliCompressSync(
        vocabularyBytes('ctxloom-vocab 1 test 4', [
          utf8.encode('a'),
          Uint8Array.of(0xe4, 0xb8),
          new Uint8Array(0),
          utf8.encode(' 上下文😀'),
        ]),
      ),
    );
    const vocabulary = readVocabularyFile('test', file);
    expect(vocabulary.texts).toEqual(['a', undefined, undefined, ' 上下文😀']);
    expect([...vocabulary.starts]).toEqual([0, 1, 3, 3, 17]);
    expect([...vocabulary.bytes.subarray(1, 3)]).toEqual([0xe4, 0xb8]);
  });

  it('names the missing file and how to write it', () => {
    const missing = pathToFileURL(join(directory, 'absent.br'));
    expect(() => readVocabularyFile('o200k_base', missing)).toThrowError(
      expect.objectContaining({ code: 'not-found', file: join(directory, 'absent.br') }),
    );
    expect(() => readVocabularyFile('o200k_base', missing)).toThrowError(/npm run build:vocab/u);
  });

  it('rejects a file that is not brotli, another encoding, or truncated', () => {
    const notBrotli = write('plain.br', Buffer.from('ctxloom-vocab 1 test 0\n'));
    expect(() => readVocabularyFile('test', notBrotli)).toThrowError(
      expect.objectContaining({ code: 'parse-error' }),
    );
    const data = vocabularyBytes('ctxloom-vocab 1 test 2', [utf8.encode('ab'), utf8.encode('c')]);
    const error = (run: () => unknown) => {
      try {
        run();
      } catch (caught) {
        return CtxloomError.is(caught) ? { code: caught.code, path: caught.path, line: caught.line } : caught;
      }
      return undefined;
    };
    expect(error(() => parseVocabulary('other', data, 'f'))).toEqual({
      code: 'parse-error',
      line: 1,
      path: undefined,
    });
    expect(error(() => parseVocabulary('test', data.subarray(0, data.length - 1), 'f'))).toEqual({
      code: 'parse-error',
      path: 'ranks[1]',
      line: undefined,
    });
    const extra = Buffer.concat([data, Buffer.from([1, 65])]);
    expect(error(() => parseVocabulary('test', extra, 'f'))).toMatchObject({ code: 'parse-error' });
    const tooMany = vocabularyBytes('ctxloom-vocab 1 test 9', [Uint8Array.from({ length: 200 }, () => 65)]);
    expect(error(() => parseVocabulary('test', tooMany, 'f'))).toMatchObject({ code: 'parse-error' });
  });
});

describe('utf16LengthOf', () => {
  it('is the decoded length for well-formed UTF-8 and −1 exactly when a fatal decoder throws', () => {
    const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    const reference = (bytes: Uint8Array) => {
      try {
        return decoder.decode(bytes).length;
      } catch {
        return -1;
      }
    };
    const fragment = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 6 }).map((text) => utf8.encode(text)),
      fc.uint8Array({ maxLength: 6 }),
      fc.constantFrom(
        Uint8Array.of(0xc0, 0x80),
        Uint8Array.of(0xe0, 0x9f, 0xbf),
        Uint8Array.of(0xed, 0xa0, 0x80),
        Uint8Array.of(0xf4, 0x90, 0x80, 0x80),
        Uint8Array.of(0xf0, 0x8f, 0xbf, 0xbf),
        Uint8Array.of(0xf5, 0x80, 0x80, 0x80),
      ),
    );
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 4 }), (parts) => {
        const bytes = Buffer.concat(parts);
        expect(utf16LengthOf(bytes, 0, bytes.length)).toBe(reference(bytes));
      }),
      { numRuns: 2000 },
    );
  });
});
