import type { TokenCounter } from '../../src/core/index.ts';

/** Error of an estimator against an exact counter over a set of texts. */
export interface EstimatorError {
  texts: number;
  /** Mean of |estimate − exact| / exact, in percent. */
  meanAbsPercent: number;
  /** 95th percentile of |estimate − exact| / exact, in percent. */
  p95AbsPercent: number;
  /** Mean of (estimate − exact) / exact, in percent (positive = over-count). */
  meanSignedPercent: number;
  /** Share of texts the estimator under-counts, in percent. */
  underCountPercent: number;
  /** (Σ estimate − Σ exact) / Σ exact over all texts, in percent. */
  totalPercent: number;
}

/** Compares `estimator` with `exact` text by text (texts with 0 exact tokens are skipped). */
export function measureEstimatorError(
  estimator: TokenCounter,
  exact: TokenCounter,
  texts: readonly string[],
): EstimatorError {
  const relative: number[] = [];
  let estimateTotal = 0;
  let exactTotal = 0;
  for (const text of texts) {
    const truth = exact.countText(text);
    if (truth === 0) continue;
    const estimate = estimator.countText(text);
    relative.push((estimate - truth) / truth);
    estimateTotal += estimate;
    exactTotal += truth;
  }
  const absolute = relative.map(Math.abs).sort((a, b) => a - b);
  const mean = (values: number[]) =>
    values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
  const p95 = absolute[Math.min(absolute.length - 1, Math.floor(absolute.length * 0.95))] ?? 0;
  return {
    texts: relative.length,
    meanAbsPercent: 100 * mean(absolute),
    p95AbsPercent: 100 * p95,
    meanSignedPercent: 100 * mean(relative),
    underCountPercent: (100 * relative.filter((value) => value < 0).length) / Math.max(1, relative.length),
    totalPercent: (100 * (estimateTotal - exactTotal)) / Math.max(1, exactTotal),
  };
}
