import { Buffer } from 'node:buffer';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { brotliCompressSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { CtxloomError } from '../core/index.ts';
import { ENCODING_NAMES } from './encodings.ts';
import { parseVocabulary, readVocabularyFile } from './vocabulary-file.ts';

const require = createRequire(import.meta.url);
const utf8 = new TextEncoder();

describe('the shipped vocabulary files', () => {
  it.each(ENCODING_NAMES)('equal gpt-tokenizer’s %s rank list token by token', (encoding) => {
    const module = require(`gpt-tokenizer/bpeRanks/${encoding}`) as { default?: unknown };
    const ranks = (module.default ?? module) as readonly (string | readonly number[])[];
    const vocabulary = readVocabularyFile(encoding);
    expect(vocabulary.starts.length - 1).toBe(ranks.length);
    const mismatches: number[] = [];
    for (let rank = 0; rank < ranks.length; rank++) {
      const expected = ranks[rank] as string | readonly number[];
      const expectedBytes = typeof expected === 'string' ? utf8.encode(expected) : Uint8Array.from(expected);
      const actualBytes = vocabulary.bytes.subarray(vocabulary.starts[rank], vocabulary.starts[rank + 1]);
      if (Buffer.compare(actualBytes, expectedBytes) !== 0) mismatches.push(rank);
    }
    expect(mismatches.slice(0, 10)).toEqual([]);
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
