import type { ScriptFeatures } from './script-features.ts';

/**
 * Tokens per unit of each {@link ScriptFeatures} class, against `o200k_base`.
 *
 * Fitted (weighted least squares on relative error, `bench/tokenizers/fit-estimator.ts`) on
 * the fitting half of LoCoMo (English dialogue, conv-26/30/41/42) and CMRC 2018 (Chinese,
 * even articles): `cjk`, `wordRuns`, `longWordLetters`, `punctuation`.
 *
 * Fixed priors, because the data holds too few of them to fit, each chosen at or above what
 * o200k does so budgets err on the safe side: `digitGroups` 1 (o200k splits digits in threes,
 * every group is one token), `newlines` 1, `extraSpaces` 0.3 (runs of spaces merge), `kana`
 * 1 and `hangul` 1 per character (not measured: the evaluation sets hold no Japanese or
 * Korean; one token per character is a deliberately high guess), `other` 2 (an emoji or rare
 * symbol is 4 UTF-8 bytes, 1–3 tokens).
 */
export const ESTIMATOR_RATES: Readonly<ScriptFeatures> = {
  cjk: 0.8939,
  kana: 1,
  hangul: 1,
  wordRuns: 0.9701,
  longWordLetters: 0.0305,
  digitGroups: 1,
  punctuation: 0.7221,
  newlines: 1,
  extraSpaces: 0.3,
  other: 2,
};
