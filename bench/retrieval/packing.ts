import type { TokenCounter } from '../../src/core/index.ts';
import type { RankedCandidate } from '../../src/retrieval/candidate.ts';
import { injectRetrieval } from '../../src/retrieval/inject-retrieval.ts';
import type { EvalCorpus, EvalDocument } from './datasets.ts';
import type { Engine } from './peers.ts';

/**
 * Evidence recall after packing: each engine's ranking (top `recallLimit`) goes through
 * ctxloom's RetrievalInjector with the same budget and counter, whole turns only (no sentence
 * trimming, so a packed turn is a whole turn). Returns mean evidence recall per budget.
 */
export async function packedRecall(options: {
  corpora: EvalCorpus[];
  engine: Engine;
  budgets: number[];
  counter: TokenCounter;
  recallLimit: number;
}): Promise<Record<number, number>> {
  const sums: Record<number, number> = {};
  let questions = 0;
  for (const corpus of options.corpora) {
    const searcher = options.engine.build(corpus.documents);
    const texts = new Map(corpus.documents.map((document) => [document.id, document.text]));
    for (const question of corpus.questions) {
      const ranked = await searcher.search(question.question, options.recallLimit);
      const candidates = ranked.map((id, rank): RankedCandidate => {
        const content = texts.get(id) ?? '';
        return {
          id,
          origin: 'eval',
          content,
          vectorScore: 0,
          fingerprint: id,
          metadata: {},
          finalScore: 1 - rank / (ranked.length + 1),
          signals: {},
        };
      });
      questions++;
      for (const budget of options.budgets) {
        const blocks = injectRetrieval({
          candidates,
          maxTokens: budget,
          counter: options.counter,
          trimLast: false,
        });
        const packed = new Set(blocks.map((block) => block.metadata.candidateId));
        const found = question.evidence.filter((id) => packed.has(id)).length;
        sums[budget] = (sums[budget] ?? 0) + found / question.evidence.length;
      }
    }
  }
  const result: Record<number, number> = {};
  for (const budget of options.budgets) result[budget] = (sums[budget] ?? 0) / questions;
  return result;
}

/** The recency baseline: the newest whole turns that fit, the same for every question. */
export function recencyRecall(options: {
  corpora: EvalCorpus[];
  budgets: number[];
  counter: TokenCounter;
}): Record<number, number> {
  const sums: Record<number, number> = {};
  let questions = 0;
  for (const corpus of options.corpora) {
    const kept = new Map<number, Set<string>>();
    for (const budget of options.budgets)
      kept.set(budget, newestThatFit(corpus.documents, budget, options.counter));
    for (const question of corpus.questions) {
      questions++;
      for (const budget of options.budgets) {
        const set = kept.get(budget) as Set<string>;
        sums[budget] =
          (sums[budget] ?? 0) +
          question.evidence.filter((id) => set.has(id)).length / question.evidence.length;
      }
    }
  }
  const result: Record<number, number> = {};
  for (const budget of options.budgets) result[budget] = (sums[budget] ?? 0) / questions;
  return result;
}

function newestThatFit(documents: EvalDocument[], budget: number, counter: TokenCounter): Set<string> {
  const kept = new Set<string>();
  let used = 0;
  for (let index = documents.length - 1; index >= 0; index--) {
    const document = documents[index] as EvalDocument;
    const tokens = counter.countText(document.text);
    if (used + tokens > budget) break;
    used += tokens;
    kept.add(document.id);
  }
  return kept;
}
