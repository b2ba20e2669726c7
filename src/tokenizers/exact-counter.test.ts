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

describe('exact counter backends', () => {
  it('counts the same with the WebAssembly path for CJK-heavy text as with the JavaScript loop', () => {
    const auto = createExactCounter({ encoding: 'o200k_base' });
    const js = createExactCounter({ encoding: 'o200k_base', backend: 'js' });
    const texts = [
      '领导者收到客户端请求后，把命令作为新条目追加到自己的日志中，然后并行地向其他服务器发送 AppendEntries RPC 以复制该条目。',
      '日本語のテキストも数えます。ひらがなとカタカナ、漢字が混ざっています。これは十分に長い文です。',
      '한국어 문장도 정확하게 세어야 합니다. 이 문장은 충분히 길어서 웹어셈블리 경로를 탑니다. 정확합니다.',
      `${'中文'.repeat(200)}<|endoftext|>${'混合 mixed 文本 text '.repeat(20)}`,
    ];
    for (const text of texts) expect(auto.countText(text)).toBe(js.countText(text));
  });
});

describe('createExactCounter on CJK-heavy texts', () => {
  const paragraph = (seed: number) =>
    `第${seed}段：上下文工程把每次模型调用的输入编译出来，并且在预算之内。每个块只统计一次。`.repeat(3);

  it('counts a remembered text as it counted it first, within any cache bound', () => {
    const reference = createExactCounter({ encoding: 'o200k_base', backend: 'js' });
    for (const maxCachedCjkCharacters of [0, 200, 1 << 20]) {
      const counter = createExactCounter({ encoding: 'o200k_base', maxCachedCjkCharacters });
      for (let round = 0; round < 3; round++) {
        for (let seed = 0; seed < 8; seed++) {
          expect(counter.countText(paragraph(seed))).toBe(reference.countText(paragraph(seed)));
        }
      }
      counter.bpe.clearCaches();
      expect(counter.countText(paragraph(1))).toBe(reference.countText(paragraph(1)));
    }
  });
});
