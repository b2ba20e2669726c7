import type { RetrievalCandidate } from './candidate.ts';
import type { RecallRequest, RecallSource } from './recall-source.ts';

/**
 * A recall source of this package whose recall is synchronous underneath and returns new
 * candidates in a new list that it keeps nowhere (a conversation index and its views): `now`
 * is that recall without the promise, for as long as the source's `recall` is still `recall`.
 * The retriever calls `now` itself — no promise nor await per round — and, since no one else
 * holds the candidates, lets the seed reranker complete them into the ranked ones in place
 * instead of copying each (decision 064, third amendment). Internal: not exported from
 * `ctxloom/retrieval`.
 */
export interface FreshRecall {
  recall: RecallSource['recall'];
  /**
   * With `ranked`, each candidate already holds `finalScore` 0 and `signals` placeholders (the
   * ranked candidate's shape, for a reranker that overwrites them on every candidate it
   * returns and drops the others).
   */
  now(request: RecallRequest, ranked: boolean): RetrievalCandidate[];
  /**
   * Whether the candidates the last `now` returned have pairwise different fingerprints, as
   * the source knows them (false when it does not know): deduplication keeps such a list — and
   * any part of it — as it is.
   */
  distinct(): boolean;
}

const fresh = new WeakMap<RecallSource, FreshRecall>();

/** Registers `source` (its current `recall`) as a fresh source with the synchronous `now`. */
export function registerFreshRecall(
  source: RecallSource,
  now: FreshRecall['now'],
  distinct: FreshRecall['distinct'],
): void {
  fresh.set(source, { recall: source.recall, now, distinct });
}

/** The fresh recall of `source`, if registered (compare `recall` with the source's before use). */
export function freshRecallOf(source: RecallSource): FreshRecall | undefined {
  return fresh.get(source);
}
