import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CtxloomError, withTokenCache } from '../core/index.ts';
import { describeTokenCounterConformance } from '../testing/index.ts';
import { createEstimatorCounter, estimateTokens } from './estimator-counter.ts';
import { ESTIMATOR_RATES } from './estimator-rates.ts';
import { createO200kCounter } from './exact-counter.ts';

describeTokenCounterConformance('estimate-cjk', () => createEstimatorCounter(), { monotone: true });
describeTokenCounterConformance('estimate-cjk (cached)', () => withTokenCache(createEstimatorCounter()));

describe('createEstimatorCounter', () => {
  const estimator = createEstimatorCounter();
  const exact = createO200kCounter();

  it('is marked inexact and named estimate-cjk', () => {
    expect(estimator.exact).toBe(false);
    expect(estimator.name).toBe('estimate-cjk');
  });

  it('counts Chinese near o200k, far above characters ÷ 4', () => {
    const text =
      '范廷颂枢机（，），圣名保禄·若瑟（），是越南罗马天主教枢机。1963年被任为主教；1990年被擢升为天主教河内总教区宗座署理。';
    const estimate = estimator.countText(text);
    const truth = exact.countText(text);
    expect(estimate).toBeGreaterThan(text.length / 4 + 10);
    expect(Math.abs(estimate - truth) / truth).toBeLessThan(0.25);
  });

  it('counts English dialogue near o200k', () => {
    const text =
      'Hey Mel! Good to see you! How have you been? I went to a LGBTQ support group yesterday and it was so powerful.';
    const truth = exact.countText(text);
    expect(Math.abs(estimator.countText(text) - truth) / truth).toBeLessThan(0.2);
  });

  it('never counts less when text is appended', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 60 }),
        fc.string({ unit: 'grapheme', maxLength: 60 }),
        (left, right) => {
          expect(estimator.countText(left + right)).toBeGreaterThanOrEqual(estimator.countText(left));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('scales with the bias option', () => {
    const text = '上下文工程 context engineering 2024';
    const unbiased = createEstimatorCounter({ bias: 1 }).countText(text);
    const doubled = createEstimatorCounter({ bias: 2 }).countText(text);
    expect(doubled).toBeGreaterThanOrEqual(2 * unbiased - 1);
    expect(estimateTokens({ text, rates: ESTIMATOR_RATES, bias: 1 })).toBe(unbiased);
  });

  it('rejects a bias that is not a positive number', () => {
    for (const bias of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => createEstimatorCounter({ bias })).toThrow(CtxloomError);
    }
  });
});
