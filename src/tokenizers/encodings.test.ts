import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { describe, expect, it, vi } from 'vitest';
import { loadEncodingTables, splitPatternOf } from './encodings.ts';

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
    expect(tables.stringRanks.get('hello')).toBeTypeOf('number');
  });
});

describe('splitPatternOf', () => {
  it('is the pre-tokeniser gpt-tokenizer uses for each encoding', () => {
    expect(splitPatternOf('o200k_base')).toEqual(O200K_TOKEN_SPLIT_REGEX);
    expect(splitPatternOf('cl100k_base')).toEqual(CL100K_TOKEN_SPLIT_REGEX);
    expect(splitPatternOf('o200k_base').source).toBe(O200K_TOKEN_SPLIT_REGEX.source);
    expect(splitPatternOf('cl100k_base').source).toBe(CL100K_TOKEN_SPLIT_REGEX.source);
  });
});
