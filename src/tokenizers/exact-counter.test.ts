import fc from 'fast-check';
import { countTokens as gptCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as gptO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { withTokenCache } from '../core/index.ts';
import { describeTokenCounterConformance } from '../testing/index.ts';
import { createCl100kCounter, createExactCounter, createO200kCounter } from './exact-counter.ts';

const ORDINARY = { disallowedSpecial: new Set<string>() };

// The cached variants count with the same loop as the plain ones, which take the 1 MB input
// (~0.7 s of CPU each, mostly 'a' × 1 MB); 64 K characters test the cache's side of it.
const CACHED = { largeInputLength: 65_536 };
describeTokenCounterConformance('o200k_base', () => createO200kCounter());
describeTokenCounterConformance('o200k_base (cached)', () => withTokenCache(createO200kCounter()), CACHED);
describeTokenCounterConformance('cl100k_base', () => createCl100kCounter());
describeTokenCounterConformance('cl100k_base (cached)', () => withTokenCache(createCl100kCounter()), CACHED);

describe('createExactCounter', () => {
  const o200k = createO200kCounter();
  const cl100k = createCl100kCounter();

  it('counts known strings as OpenAI does', () => {
    expect(o200k.countText('Hello, world!')).toBe(4);
    expect(cl100k.countText('Hello, world!')).toBe(4);
    expect(o200k.countText('<|endoftext|>')).toBe(7);
    expect(o200k.name).toBe('o200k_base');
    expect(o200k.exact).toBe(true);
  });

  it('counts Chinese with far more tokens than characters ÷ 4', () => {
    const text = '上下文工程把每次模型调用的输入编译出来，并且在预算之内。';
    expect(o200k.countText(text)).toBeGreaterThan(text.length / 2);
  });

  it('agrees with gpt-tokenizer on arbitrary Unicode strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), (text) => {
        // gpt-tokenizer miscounts byte order marks (see the test below).
        fc.pre(!text.includes('\uFEFF'));
        expect(o200k.countText(text)).toBe(gptO200k(text, ORDINARY));
        expect(cl100k.countText(text)).toBe(gptCl100k(text, ORDINARY));
      }),
      { numRuns: 300 },
    );
  });

  it('agrees with gpt-tokenizer on mixed-script words and special-token fragments', () => {
    const word = fc.constantFrom(
      'the',
      ' 上下文',
      '工程',
      ' context',
      '<|endoftext|>',
      '😀',
      '2024',
      '\n',
      '  ',
      'Ünï',
    );
    fc.assert(
      fc.property(fc.array(word, { maxLength: 40 }), (words) => {
        const text = words.join('');
        expect(o200k.countText(text)).toBe(gptO200k(text, ORDINARY));
      }),
      { numRuns: 300 },
    );
  });

  it('counts a byte order mark as tiktoken does (gpt-tokenizer drops it from its tokens)', () => {
    // tiktoken 1.0.22 encode_ordinary(text).length, both encodings; gpt-tokenizer 4.0 says
    // 2, 3, 3, 7.
    const texts = { '\uFEFF': 1, '\uFEFFusing': 1, '\uFEFF\n\n': 1, 'x \uFEFFusing System;': 5 };
    for (const [text, count] of Object.entries(texts)) {
      expect(o200k.countText(text)).toBe(count);
      expect(cl100k.countText(text)).toBe(count);
    }
  });

  it('gives the same counts with the piece cache disabled', () => {
    const uncached = createExactCounter({ encoding: 'o200k_base', maxCachedPieces: 0 });
    const text = 'Repeated words repeated words 重复的词 重复的词';
    expect(uncached.countText(text)).toBe(o200k.countText(text));
    expect(uncached.countText(text)).toBe(o200k.countText(text));
  });
});

describe('createExactCounter on CJK text', () => {
  // Runs of Han characters, kana and hangul are cut into parts where no token spans
  // (piece-splits.ts) and counted from remembered parts; the counts must not change.
  const fragment = fc.constantFrom(
    '上下文工程',
    '把每次模型调用的输入编译出来',
    '我们',
    '的',
    '，',
    '。',
    '「预算」',
    'ひらがなとカタカナ',
    '漢字',
    '한국어 문장',
    'ü',
    'é',
    'ñ',
    '２０２４',
    '😀',
    '\uD800',
    'x',
    ' ',
    '\n',
    'LLM',
    '〇',
    '々',
  );
  const cjkText = fc.array(fragment, { maxLength: 30 }).map((parts) => parts.join(''));
  const mixed = fc.oneof(
    cjkText,
    fc.string({
      unit: fc.integer({ min: 0x3000, max: 0x9fff }).map((code) => String.fromCharCode(code)),
      maxLength: 60,
    }),
  );

  it('agrees with gpt-tokenizer on CJK-heavy texts, caches cold and warm', () => {
    const o200k = createO200kCounter();
    const cl100k = createCl100kCounter();
    fc.assert(
      fc.property(mixed, fc.boolean(), (text, cold) => {
        if (cold) {
          o200k.bpe.clearCaches();
          cl100k.bpe.clearCaches();
        }
        expect(o200k.countText(text)).toBe(gptO200k(text, ORDINARY));
        expect(cl100k.countText(text)).toBe(gptCl100k(text, ORDINARY));
      }),
      { numRuns: 400 },
    );
  });

  it('keeps the caches of each counter its own: counters made one after another, used in turn', () => {
    fc.assert(
      fc.property(fc.array(mixed, { minLength: 1, maxLength: 12 }), (texts) => {
        const counters = [createO200kCounter(), createO200kCounter(), createO200kCounter()];
        texts.forEach((text, index) => {
          const counter = counters[index % counters.length] as (typeof counters)[number];
          if (index % 4 === 3) counter.bpe.clearCaches();
          expect(counter.countText(text)).toBe(gptO200k(text, ORDINARY));
          expect(counter.countText(text)).toBe(gptO200k(text, ORDINARY));
        });
      }),
      { numRuns: 100 },
    );
  });

  it('counts the same with every cache disabled', () => {
    const uncached = createExactCounter({ encoding: 'o200k_base', maxCachedPieces: 0 });
    const cached = createO200kCounter();
    fc.assert(
      fc.property(mixed, (text) => {
        expect(uncached.countText(text)).toBe(cached.countText(text));
      }),
      { numRuns: 200 },
    );
  });
});
