import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { describe, expect, it, vi } from 'vitest';
import { ENCODING_NAMES, loadEncodingTables, splitPatternOf } from './encodings.ts';
import { readVocabularyFile } from './vocabulary-file.ts';

describe('loadEncodingTables', () => {
  it('loads nothing until a counter counts, then only that encoding', async () => {
    // Fresh module instances: test files share modules in a worker (the unit project does not
    // isolate files), so another file may have loaded o200k already.
    vi.resetModules();
    const { isEncodingLoaded } = await import('./encodings.ts');
    const { createO200kCounter } = await import('./exact-counter.ts');
    const counter = createO200kCounter();
    expect(isEncodingLoaded('o200k_base')).toBe(false);
    expect(counter.countText('lazy')).toBeGreaterThan(0);
    expect(isEncodingLoaded('o200k_base')).toBe(true);
    expect(isEncodingLoaded('cl100k_base')).toBe(false);
  });

  it('returns the same tables on every call', () => {
    expect(loadEncodingTables('o200k_base')).toBe(loadEncodingTables('o200k_base'));
  });

  it('maps every single byte to a rank', () => {
    const tables = loadEncodingTables('o200k_base');
    expect(new Set(tables.byteRanks).size).toBe(256);
  });

  // The strict decoder keeps a leading byte order mark: the eight tokens starting with EF BB BF
  // are texts too (`'\uFEFFusing'` is one token, as in tiktoken).
  const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  it.each(ENCODING_NAMES)(
    'knows the text of every %s token whose bytes are UTF-8 as one token, and no other',
    (encoding) => {
      const { isToken } = loadEncodingTables(encoding);
      const { bytes, starts } = readVocabularyFile(encoding);
      const missed: string[] = [];
      const texts = new Set<string>();
      for (let rank = 0; rank + 1 < starts.length; rank++) {
        let text: string;
        try {
          text = strict.decode(bytes.subarray(starts[rank], starts[rank + 1]));
        } catch {
          continue; // not UTF-8: no text has these bytes
        }
        if (text === '') continue;
        texts.add(text);
        if (!isToken(text)) missed.push(text);
      }
      expect(missed).toEqual([]);
      expect(texts.size).toBeGreaterThan(starts.length * 0.9);
      expect(texts.has('\uFEFFusing') && isToken('\uFEFFusing')).toBe(true);
      // Texts one character longer, a lone surrogate, a pair and the empty text are not tokens.
      let longer = 0;
      for (const text of [...texts].slice(0, 5000))
        if (!texts.has(`${text}\u0001`) && isToken(`${text}\u0001`)) longer++;
      expect(longer).toBe(0);
      for (const text of ['\ud83d', 'a\ude00', '\ude00\ud83d', '', 'x'.repeat(1000)])
        expect(isToken(text), text).toBe(false);
      expect(isToken('😀')).toBe(texts.has('😀'));
    },
  );
});

describe('splitPatternOf', () => {
  it('is the pre-tokeniser gpt-tokenizer uses for each encoding', () => {
    expect(splitPatternOf('o200k_base')).toEqual(O200K_TOKEN_SPLIT_REGEX);
    expect(splitPatternOf('cl100k_base')).toEqual(CL100K_TOKEN_SPLIT_REGEX);
    expect(splitPatternOf('o200k_base').source).toBe(O200K_TOKEN_SPLIT_REGEX.source);
    expect(splitPatternOf('cl100k_base').source).toBe(CL100K_TOKEN_SPLIT_REGEX.source);
  });
});
