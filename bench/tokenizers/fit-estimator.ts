/**
 * Fits the estimator's per-class rates against exact o200k counts on the fitting half of the
 * corpus (weighted least squares on relative error) and prints them. The rates in
 * src/tokenizers/estimator-rates.ts were produced by this script; the benchmark measures the
 * error on the held-out half. Run: npx node --conditions=ctxloom-source bench/tokenizers/fit-estimator.ts
 */
import { createO200kCounter } from '../../src/tokenizers/exact-counter.ts';
import { extractScriptFeatures, type ScriptFeatures } from '../../src/tokenizers/script-features.ts';
import { loadEstimatorCorpus } from './estimator-data.ts';

const FITTED: (keyof ScriptFeatures)[] = ['cjk', 'wordRuns', 'longWordLetters', 'punctuation'];
/** Classes the data has too little of to fit; their rates are fixed priors (see the rates file). */
const FIXED: Partial<Record<keyof ScriptFeatures, number>> = {
  digitGroups: 1,
  newlines: 1,
  extraSpaces: 0.3,
};

/** Solves the weighted normal equations (XᵀWX) β = XᵀWy by Gaussian elimination. */
function solve(rows: number[][], targets: number[], weights: number[]): number[] {
  const size = FITTED.length;
  const matrix = Array.from({ length: size }, () => new Array<number>(size + 1).fill(0));
  rows.forEach((row, index) => {
    const weight = weights[index]!;
    for (let i = 0; i < size; i++) {
      for (let j = 0; j < size; j++) matrix[i]![j]! += weight * row[i]! * row[j]!;
      matrix[i]![size]! += weight * row[i]! * targets[index]!;
    }
  });
  for (let i = 0; i < size; i++) matrix[i]![i]! += 1e-6; // ridge: classes absent from the data stay 0
  for (let column = 0; column < size; column++) {
    let pivot = column;
    for (let row = column + 1; row < size; row++) {
      if (Math.abs(matrix[row]![column]!) > Math.abs(matrix[pivot]![column]!)) pivot = row;
    }
    [matrix[column], matrix[pivot]] = [matrix[pivot]!, matrix[column]!];
    for (let row = 0; row < size; row++) {
      if (row === column) continue;
      const factor = matrix[row]![column]! / matrix[column]![column]!;
      for (let k = column; k <= size; k++) matrix[row]![k]! -= factor * matrix[column]![k]!;
    }
  }
  return matrix.map((row, index) => row[size]! / row[index]!);
}

const corpus = loadEstimatorCorpus();
const exact = createO200kCounter();
const texts = [...corpus.english.fit, ...corpus.chinese.fit];
const rows = texts.map((text) => {
  const features = extractScriptFeatures(text);
  return FITTED.map((key) => features[key]);
});
const targets = texts.map((text) => {
  const features = extractScriptFeatures(text);
  let fixed = 0;
  for (const [key, rate] of Object.entries(FIXED)) fixed += features[key as keyof ScriptFeatures] * rate;
  return exact.countText(text) - fixed;
});
// Weight 1/y² minimises squared relative error; both languages get equal total weight.
const englishShare = corpus.english.fit.length;
const weights = texts.map((text, index) => {
  const languageWeight = index < englishShare ? 1 / englishShare : 1 / corpus.chinese.fit.length;
  return languageWeight / Math.max(1, exact.countText(text)) ** 2;
});
const rates = solve(rows, targets, weights);
console.log(Object.fromEntries(FITTED.map((key, index) => [key, Number(rates[index]!.toFixed(4))])));
