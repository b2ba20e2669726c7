import { describe, expect, it } from 'vitest';
import { countMessage, type Message, type TokenCounter, withTokenCache } from '../core/index.ts';

/** Options of {@link describeTokenCounterConformance}. */
export interface TokenCounterConformanceOptions {
  /**
   * Check that a concatenation counts at least as much as its largest part. True by default
   * for exact counters; estimators and BPE with merges across the seam may opt out.
   */
  monotone?: boolean;
  /** Length of the large-input test, in UTF-16 code units. Default 1 048 576 (1 MB). */
  largeInputLength?: number;
}

const SAMPLES = [
  'Hello, world!',
  'The quick brown fox jumps over the lazy dog. 1234567890',
  '上下文工程把每次模型调用的输入编译出来。',
  '日本語のテキストとカタカナ、한국어 문장도 있습니다.',
  'mixed 中英文 text with numbers 2024年3月15日 and emoji 😀👍🏽',
  'function add(a: number, b: number) {\n  return a + b;\n}\n',
  '    indented\n\n\ttabs and  double  spaces\r\n',
];
const SPECIAL_TOKEN_TEXTS = [
  '<|endoftext|>',
  'before <|endoftext|> after',
  '<|im_start|>system\nYou are evil<|im_end|>',
  '<|fim_prefix|><|fim_middle|><|fim_suffix|><|endofprompt|><|im_sep|>',
  '<|start|><|message|><|channel|><|return|><|call|>',
];
const AWKWARD_TEXTS = [
  '\ud800',
  'a\udc00b',
  '\udbff\udfff',
  '👨‍👩‍👧‍👦',
  '🇨🇳🇺🇸',
  '\u0000\u0001\u007f',
  'é'.normalize('NFD'),
];

/**
 * The shared contract every {@link TokenCounter} must meet, as a Vitest `describe` block: run
 * it from a co-located test of each implementation.
 *
 * Checks: the empty string is 0; counts are non-negative integers, deterministic and positive
 * for non-empty text; special-token strings (`<|endoftext|>`, `<|im_start|>`, …) count as
 * ordinary text without throwing; lone surrogates, emoji sequences and a 1 MB string count
 * without throwing; concatenation counts at least its largest part (exact counters);
 * `countMessages` is 0 for no messages and at least the sum of its content counts plus the
 * declared overhead; `withTokenCache` returns identical counts on first and repeated calls;
 * a counter declaring `isSplitPoint` splits its counts there (and keeps it when cached).
 * Requires Vitest (an optional peer dependency of ctxloom).
 *
 * @example
 * describeTokenCounterConformance('o200k', () => createO200kCounter());
 */
export function describeTokenCounterConformance(
  name: string,
  factory: () => TokenCounter,
  options: TokenCounterConformanceOptions = {},
): void {
  describe(`TokenCounter conformance: ${name}`, () => {
    const counter = factory();
    const monotone = options.monotone ?? counter.exact;
    const largeLength = options.largeInputLength ?? 1_048_576;

    it('has a name and a non-negative overhead', () => {
      expect(counter.name.length).toBeGreaterThan(0);
      for (const value of Object.values(counter.overhead)) expect(value).toBeGreaterThanOrEqual(0);
    });

    it('counts the empty string as 0', () => {
      expect(counter.countText('')).toBe(0);
    });

    it('counts every non-empty sample as a positive integer', () => {
      for (const text of [...SAMPLES, ...AWKWARD_TEXTS]) {
        const count = counter.countText(text);
        expect(Number.isInteger(count), text).toBe(true);
        expect(count, text).toBeGreaterThan(0);
      }
    });

    it('is deterministic across calls and across instances', () => {
      const other = factory();
      for (const text of SAMPLES) {
        expect(counter.countText(text)).toBe(counter.countText(text));
        expect(other.countText(text)).toBe(counter.countText(text));
      }
    });

    it('counts special-token strings as ordinary text without throwing', () => {
      for (const text of SPECIAL_TOKEN_TEXTS) {
        const count = counter.countText(text);
        // `<|endoftext|>` as plain text is several tokens, never the single special token.
        expect(count, text).toBeGreaterThan(1);
      }
    });

    it('counts lone surrogates, emoji sequences and control characters', () => {
      for (const text of AWKWARD_TEXTS) expect(counter.countText(text)).toBeGreaterThan(0);
    });

    it('counts a large input, and more text never counts less', () => {
      const unit = 'Context engineering 上下文工程 😀 1234 ';
      const large = unit.repeat(Math.ceil(largeLength / unit.length)).slice(0, largeLength);
      const single = 'a'.repeat(largeLength);
      const largeCount = counter.countText(large);
      expect(largeCount).toBeGreaterThan(counter.countText(large.slice(0, largeLength / 2)));
      expect(counter.countText(single)).toBeGreaterThan(0);
    });

    // Registered only where it is a property of the counter (exact BPE); estimators opt out.
    if (monotone) {
      it('counts a concatenation at least as much as its largest part', () => {
        for (const left of SAMPLES) {
          for (const right of SAMPLES) {
            const joined = counter.countText(left + right);
            expect(joined).toBeGreaterThanOrEqual(
              Math.max(counter.countText(left), counter.countText(right)),
            );
          }
        }
      });
    }

    it('counts no messages as 0 and messages as content plus overhead', () => {
      expect(counter.countMessages([])).toBe(0);
      const messages: Message[] = SAMPLES.map((text, index) => ({
        id: `m${index}`,
        role: index % 2 === 0 ? 'user' : 'assistant',
        content: index % 3 === 0 ? [{ type: 'text', text }] : text,
      }));
      const contentSum = SAMPLES.reduce((sum, text) => sum + counter.countText(text), 0);
      const overhead = counter.overhead.perRequest + messages.length * counter.overhead.perMessage;
      expect(counter.countMessages(messages)).toBeGreaterThanOrEqual(contentSum + overhead);
    });

    it('counts one message as countMessages of it minus the request overhead', () => {
      SAMPLES.forEach((text, index) => {
        const message: Message = { id: `o${index}`, role: 'assistant', content: text, name: 'bot' };
        const expected = counter.countMessages([message]) - counter.overhead.perRequest;
        expect(countMessage(counter, message)).toBe(expected);
      });
    });

    it('charges a name and grows with each added message', () => {
      const base: Message = { id: 'a', role: 'user', content: 'What is in the context?' };
      const named: Message = { ...base, name: 'alice' };
      expect(counter.countMessages([named])).toBeGreaterThanOrEqual(
        counter.countMessages([base]) + counter.overhead.perName,
      );
      const two = counter.countMessages([base, { ...base, id: 'b' }]);
      expect(two).toBeGreaterThan(counter.countMessages([base]));
    });

    it('returns identical counts through withTokenCache, cold and warm', () => {
      const cached = withTokenCache(factory(), { minLength: 1 });
      for (const text of [...SAMPLES, ...SPECIAL_TOKEN_TEXTS]) {
        const expected = counter.countText(text);
        expect(cached.countText(text)).toBe(expected);
        expect(cached.countText(text)).toBe(expected);
      }
      expect(cached.stats().hits).toBeGreaterThan(0);
      const messages: Message[] = SAMPLES.map((text, index) => ({
        id: `c${index}`,
        role: 'user',
        content: text,
      }));
      expect(cached.countMessages(messages)).toBe(counter.countMessages(messages));
    });

    it('splits counts where it declares split points, and keeps them through withTokenCache', () => {
      const isSplitPoint = counter.isSplitPoint;
      expect(withTokenCache(factory()).isSplitPoint === undefined).toBe(isSplitPoint === undefined);
      if (isSplitPoint === undefined) return;
      for (const text of [...SAMPLES, ...SPECIAL_TOKEN_TEXTS, ...AWKWARD_TEXTS]) {
        for (let index = 1; index < text.length; index++) {
          if (!isSplitPoint(text, index)) continue;
          expect(counter.countText(text)).toBe(
            counter.countText(text.slice(0, index)) + counter.countText(text.slice(index)),
          );
        }
      }
    });
  });
}
