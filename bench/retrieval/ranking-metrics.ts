import type { EvalCorpus } from './datasets.ts';

/** Builds a searcher over one corpus; returns ranked document ids for a question. */
export type SearcherFactory = (corpus: EvalCorpus) => (question: string) => string[] | Promise<string[]>;

/** Recall@k (any evidence / all evidence), MRR, over every question of every corpus. */
export interface RankingScores {
  questions: number;
  /** Mean fraction of a question's evidence found in the top k, k → value in 0..1. */
  recall: Record<number, number>;
  /** Fraction of questions with all evidence in the top 10. */
  allAt10: number;
  /** Mean reciprocal rank of the first evidence hit (0 when none in the top 20). */
  mrr: number;
}

/** Ranks every question with `factory` and scores the rankings. */
export async function scoreRankings(
  corpora: EvalCorpus[],
  factory: SearcherFactory,
  ks: number[],
): Promise<RankingScores> {
  const sums: Record<number, number> = {};
  for (const k of ks) sums[k] = 0;
  let questions = 0;
  let allAt10 = 0;
  let reciprocal = 0;
  for (const corpus of corpora) {
    const search = factory(corpus);
    for (const question of corpus.questions) {
      const ranked = (await search(question.question)).slice(0, Math.max(20, ...ks));
      const evidence = new Set(question.evidence);
      questions++;
      for (const k of ks) {
        const found = ranked.slice(0, k).filter((id) => evidence.has(id)).length;
        sums[k] = (sums[k] ?? 0) + found / evidence.size;
      }
      if (ranked.slice(0, 10).filter((id) => evidence.has(id)).length === evidence.size) allAt10++;
      const first = ranked.findIndex((id) => evidence.has(id));
      if (first >= 0) reciprocal += 1 / (first + 1);
    }
  }
  const recall: Record<number, number> = {};
  for (const k of ks) recall[k] = (sums[k] ?? 0) / questions;
  return { questions, recall, allAt10: allAt10 / questions, mrr: reciprocal / questions };
}
