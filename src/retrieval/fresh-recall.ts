import type { RetrievalCandidate } from './candidate.ts';

/**
 * The candidate list a recall source of this package made last and nobody else holds (the
 * conversation index's: new candidate objects in a new list, kept by no cache). The retriever,
 * which awaits a recall itself and hands its candidates to no one but the reranker, lets the
 * seed reranker complete such candidates into ranked ones in place instead of copying each
 * (decision 064, third amendment). One slot for the whole package: any later recall of such a
 * source overwrites it. Internal: not exported from `ctxloom/retrieval`.
 */
let fresh: readonly RetrievalCandidate[] | undefined;

/** Notes `list` as the last list made fresh by a recall of this package. */
export function markFresh(list: readonly RetrievalCandidate[]): void {
  fresh = list;
}

/** Whether `list` is the last list marked fresh; it is unmarked either way (taken once). */
export function takeFresh(list: readonly RetrievalCandidate[]): boolean {
  const taken = fresh === list;
  fresh = undefined;
  return taken;
}

/** Recall sources whose `recall` returns a fresh list: a conversation index and its views. */
export const freshSources = new WeakSet<object>();
