import { type ContextBlock, CtxloomError, createBlock, type TokenCounter } from '../core/index.ts';
import type { RankedCandidate } from './candidate.ts';
import { trimToSentences } from './trim-to-sentences.ts';

/** Options of {@link injectRetrieval}. */
export interface InjectRetrievalOptions {
  /** Reranked candidates, best first (as {@link Reranker.rerank} returns them). */
  candidates: readonly RankedCandidate[];
  /** Token budget for all blocks together, ≥ 0. */
  maxTokens: number;
  counter: TokenCounter;
  /** Layer of the blocks; default `knowledge__context`. */
  layer?: string;
  /** Source name on the blocks; default `retrieval`. */
  source?: string;
  /** Renders a candidate as block text; default its `content`. */
  format?: (candidate: RankedCandidate) => string;
  /**
   * Whether a candidate that does not fit may be cut to its leading whole sentences.
   * Default true. Packing goes on after a cut: what the cut leaves may still hold a shorter
   * candidate further down (whole, or cut in its turn).
   */
  trimLast?: boolean;
}

/**
 * Seed 001's RetrievalInjector: turns reranked candidates into `ContextBlock`s within a token
 * budget, highest final score first. A candidate that does not fit is trimmed at a sentence
 * boundary when at least one sentence fits, otherwise skipped; either way packing goes on, so
 * a shorter one further down may still fill what is left. Each block carries the candidate's provenance and,
 * in `metadata`, `origin`, `candidateId`, `finalScore`, `signals` and `trimmed`. Block
 * priority is the final score.
 */
export function injectRetrieval(options: InjectRetrievalOptions): ContextBlock[] {
  if (!(options.maxTokens >= 0)) {
    throw new CtxloomError({ code: 'invalid-argument', message: 'maxTokens must be ≥ 0', path: 'maxTokens' });
  }
  // No budget or nothing to pack: no block, nothing formatted or counted.
  if (options.maxTokens === 0 || options.candidates.length === 0) return [];
  const layer = options.layer ?? 'knowledge__context';
  const source = options.source ?? 'retrieval';
  const format = options.format ?? ((candidate: RankedCandidate) => candidate.content);
  const trimLast = options.trimLast ?? true;
  const blocks: ContextBlock[] = [];
  let remaining = options.maxTokens;
  for (const candidate of options.candidates) {
    if (remaining <= 0) break;
    const text = format(candidate);
    let tokens = options.counter.countText(text);
    let content = text;
    let trimmed = false;
    if (tokens > remaining) {
      if (!trimLast) continue;
      content = trimToSentences(text, remaining, options.counter);
      if (content.length === 0) continue;
      tokens = options.counter.countText(content);
      trimmed = true;
    }
    const block = createBlock(
      {
        id: `${candidate.origin}:${candidate.id}`,
        layer,
        source,
        content,
        tokens,
        priority: Math.min(1, Math.max(0, candidate.finalScore)),
        // Unchanged content keeps the candidate's dedup key: the reranker deduplicated on
        // it already, and hashing the text again cost ~14 % of an agent's retrieval path.
        ...(content === candidate.content ? { fingerprint: candidate.fingerprint } : {}),
        metadata: {
          ...candidate.metadata,
          origin: candidate.origin,
          candidateId: candidate.id,
          finalScore: candidate.finalScore,
          signals: candidate.signals,
          trimmed,
        },
        ...(candidate.provenance === undefined ? {} : { provenance: candidate.provenance }),
      },
      options.counter,
    );
    blocks.push(block);
    remaining -= tokens;
  }
  return blocks;
}
