import { type ContextBlock, CtxloomError, type Message, type TokenCounter } from '../core/index.ts';
import type { RankedCandidate, RetrievalCandidate } from './candidate.ts';
import { freshRecallOf } from './fresh-recall.ts';
import { type InjectRetrievalOptions, injectRetrieval } from './inject-retrieval.ts';
import { type RewrittenQuery, rewriteQuery } from './query-rewriter.ts';
import type { RecallRequest, RecallSource } from './recall-source.ts';
import { createReranker, inPlaceRerank, type Reranker } from './reranker.ts';

/** A recall source with its own limits. */
export interface RecallSourceConfig {
  source: RecallSource;
  /** Candidates recalled from this source; default the retriever's `recallLimit` (20). */
  recallLimit?: number;
  /** Candidates with `vectorScore` below this are dropped; default 0, range 0..1. */
  minScore?: number;
}

/** Options of {@link createRetriever}. */
export interface RetrieverOptions {
  sources: readonly (RecallSource | RecallSourceConfig)[];
  /**
   * Candidates recalled per source in the first round; default 20 (seed 001), integer ≥ 1.
   * When the packed blocks leave room for more and a source returned all it was asked for,
   * `retrieve` recalls again with a larger limit (see `maxRecallLimit`), so it fills the
   * token budget it is given rather than stopping at `recallLimit` candidates.
   */
  recallLimit?: number;
  /**
   * Most candidates recalled per source when filling a budget; default 400, integer ≥
   * `recallLimit`. Equal to `recallLimit`: one round, at most `recallLimit` candidates.
   */
  maxRecallLimit?: number;
  /** Default {@link createReranker}(). */
  reranker?: Reranker;
  /** Query rewriting from recent history; `false` turns it off. Defaults 5 messages, top 6. */
  rewrite?: { recentMessages?: number; topK?: number } | false;
  /** Candidates whose final score is below this are dropped; default 0. */
  minFinalScore?: number;
}

/** Input of {@link Retriever.retrieve}. */
export interface RetrieveRequest {
  query: string;
  history?: readonly (Message | string)[];
  /** Budget of the injected blocks, in tokens of `counter`. */
  maxTokens: number;
  counter: TokenCounter;
  /** Layer and source name of the blocks; defaults `knowledge__context` / `retrieval`. */
  layer?: string;
  sourceName?: string;
  signal?: AbortSignal;
}

/** What one retrieval did: the rewritten query, every ranked candidate, the injected blocks. */
export interface RetrievalResult {
  query: RewrittenQuery;
  ranked: RankedCandidate[];
  blocks: ContextBlock[];
  /** Sources that failed (their candidates are missing); retrieval itself still succeeds. */
  failures: Array<{ source: string; error: unknown }>;
}

/** Seed 001's unified retrieval pipeline, shared by the passive source and the `query` tool. */
export interface Retriever {
  retrieve(request: RetrieveRequest): Promise<RetrievalResult>;
}

/**
 * Creates the pipeline: QueryRewriter → parallel recall (per-source `recallLimit`,
 * `minScore`) → Reranker (dedup + weighted signals) → RetrievalInjector (budget). When the
 * packed blocks leave budget unused and a source filled its limit, recall runs again with a
 * larger limit (up to `maxRecallLimit`, at most 4 rounds): `retrieve` fills the budget.
 * @example
 * const retriever = createRetriever({ sources: [memory.recallSource(), kb] });
 * const { blocks } = await retriever.retrieve({ query: 'auth?', history, maxTokens: 2000, counter });
 */
export function createRetriever(options: RetrieverOptions): Retriever {
  const recallLimit = options.recallLimit ?? 20;
  if (!Number.isInteger(recallLimit) || recallLimit < 1) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: 'recallLimit must be an integer ≥ 1',
      path: 'recallLimit',
    });
  }
  const maxRecallLimit = options.maxRecallLimit ?? Math.max(recallLimit, DEFAULT_MAX_RECALL_LIMIT);
  if (!Number.isInteger(maxRecallLimit) || maxRecallLimit < recallLimit) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `maxRecallLimit must be an integer ≥ recallLimit (${recallLimit})`,
      path: 'maxRecallLimit',
    });
  }
  const configs = options.sources.map((entry) => ('source' in entry ? entry : { source: entry }));
  const names = new Set<string>();
  for (const config of configs) {
    if (names.has(config.source.name)) {
      throw new CtxloomError({
        code: 'invalid-config',
        message: `duplicate recall source "${config.source.name}"`,
        path: 'sources',
      });
    }
    names.add(config.source.name);
  }
  const reranker = options.reranker ?? createReranker();
  const rewrite = options.rewrite;

  const minFinalScore = options.minFinalScore;
  const only = configs.length === 1 ? (configs[0] as RecallSourceConfig) : undefined;
  // A single source whose recall is synchronous and returns new candidates no one else holds
  // (fresh-recall.ts): called without its promise, and with the seed reranker, its candidates
  // are completed into the ranked ones instead of copied.
  const fresh = only === undefined ? undefined : freshRecallOf(only.source);
  const completing = fresh === undefined ? undefined : inPlaceRerank(reranker);

  return {
    async retrieve(request) {
      const query =
        rewrite === false || request.history === undefined
          ? { query: request.query, original: request.query, addedWords: [] }
          : rewriteQuery({ query: request.query, messages: request.history, ...rewrite });
      const round: RecallRound = { failures: [], more: false };
      let scale = 1;
      let ranked: RankedCandidate[] = [];
      let blocks: ContextBlock[] = [];
      // The first round, and while room is left for another block of the packed ones' mean
      // size and a source may hold more, rounds that fill the budget — sized by the share of
      // the budget the last round filled (at least double), up to `maxRecallLimit` per source.
      for (let rounds = 0; rounds < MAX_RECALL_ROUNDS; rounds++) {
        if (rounds > 0) {
          scale = nextScale(round, blocks, request.maxTokens, scale);
          if (scale === 0) break;
          // Each round reports its own failures (the list is not handed out before the end).
          round.failures.length = 0;
          round.more = false;
        }
        let recalled: RetrievalCandidate[];
        let owned = false;
        if (only !== undefined) {
          // One source: its promise awaited here (no async wrapper per round, nor Promise.all).
          const limit = limitOf(only, scale, recallLimit, maxRecallLimit);
          try {
            const recallOf = recallRequest(query.query, limit, request.signal);
            let candidates: RetrievalCandidate[];
            // While the source's recall is still the one registered as fresh.
            if (fresh !== undefined && fresh.recall === only.source.recall) {
              candidates = fresh.now(recallOf, completing?.seedSignalsOnly === true);
              owned = completing !== undefined;
            } else candidates = await only.source.recall(recallOf);
            recalled = keptOf(only, limit, maxRecallLimit, candidates, round);
          } catch (error) {
            recalled = failedRecall(only, error, request.signal, round);
          }
        } else {
          recalled = await recallAll(
            configs,
            query.query,
            scale,
            recallLimit,
            maxRecallLimit,
            request.signal,
            round,
          );
        }
        const input =
          minFinalScore === undefined
            ? { query: query.query, candidates: recalled }
            : { query: query.query, candidates: recalled, minScore: minFinalScore };
        // A fresh list (or the part of it kept) that its source knows to repeat no fingerprint
        // is not deduplicated again.
        ranked = owned
          ? (completing as NonNullable<typeof completing>).rerank(
              input,
              (fresh as NonNullable<typeof fresh>).distinct(),
            )
          : reranker.rerank(input);
        // A 0 budget packs nothing (injectRetrieval returns no block for it).
        blocks = request.maxTokens === 0 ? [] : inject(ranked, request);
      }
      return { query, ranked, blocks, failures: round.failures };
    },
  };
}

// The scale of the next budget-filling round, or 0 when there is none: no source may hold
// more, nothing was packed, or less room is left than a packed block's mean size.
function nextScale(
  round: RecallRound,
  blocks: readonly ContextBlock[],
  maxTokens: number,
  scale: number,
): number {
  if (!round.more || blocks.length === 0) return 0;
  const used = blocks.reduce((sum, block) => sum + block.tokens, 0);
  if (maxTokens - used < used / blocks.length) return 0;
  return Math.max(scale * 2, Math.ceil(((scale * maxTokens) / used) * 1.25));
}

// The ranked candidates packed into the request's budget.
function inject(ranked: RankedCandidate[], request: RetrieveRequest): ContextBlock[] {
  const options: InjectRetrievalOptions = {
    candidates: ranked,
    maxTokens: request.maxTokens,
    counter: request.counter,
  };
  if (request.layer !== undefined) options.layer = request.layer;
  if (request.sourceName !== undefined) options.source = request.sourceName;
  return injectRetrieval(options);
}

// Every source recalled in parallel, their kept candidates in source order.
async function recallAll(
  configs: readonly RecallSourceConfig[],
  query: string,
  scale: number,
  recallLimit: number,
  maxRecallLimit: number,
  signal: AbortSignal | undefined,
  round: RecallRound,
): Promise<RetrievalCandidate[]> {
  const recallFrom = async (config: RecallSourceConfig): Promise<RetrievalCandidate[]> => {
    const limit = limitOf(config, scale, recallLimit, maxRecallLimit);
    try {
      const candidates = await config.source.recall(recallRequest(query, limit, signal));
      return keptOf(config, limit, maxRecallLimit, candidates, round);
    } catch (error) {
      return failedRecall(config, error, signal, round);
    }
  };
  return (await Promise.all(configs.map(recallFrom))).flat();
}

// What the recall of one round reports besides its candidates.
interface RecallRound {
  /** Sources that failed in this round. */
  failures: RetrievalResult['failures'];
  /** Whether a source may hold more than it returned (it filled its limit). */
  more: boolean;
}

// A source's limit in a round of `scale`: its own (or the retriever's) limit scaled, within
// `maxRecallLimit`.
function limitOf(
  config: RecallSourceConfig,
  scale: number,
  recallLimit: number,
  maxRecallLimit: number,
): number {
  const base = config.recallLimit ?? recallLimit;
  return Math.max(base, Math.min(maxRecallLimit, Math.ceil(base * scale)));
}

function recallRequest(query: string, limit: number, signal: AbortSignal | undefined): RecallRequest {
  return signal === undefined ? { query, limit } : { query, limit, signal };
}

// The candidates of a source that pass its `minScore` (the list itself when all do); notes in
// `round` whether the source filled its limit.
function keptOf(
  config: RecallSourceConfig,
  limit: number,
  maxRecallLimit: number,
  candidates: RetrievalCandidate[],
  round: RecallRound,
): RetrievalCandidate[] {
  if (candidates.length >= limit && limit < maxRecallLimit) round.more = true;
  const minScore = config.minScore ?? 0;
  for (let index = 0; index < candidates.length; index++) {
    if (!((candidates[index] as RetrievalCandidate).vectorScore >= minScore)) {
      return candidates.filter((candidate) => candidate.vectorScore >= minScore);
    }
  }
  return candidates;
}

// A failed source: rethrown when the retrieval was aborted, else noted and without candidates.
function failedRecall(
  config: RecallSourceConfig,
  error: unknown,
  signal: AbortSignal | undefined,
  round: RecallRound,
): RetrievalCandidate[] {
  if (signal?.aborted === true) throw error;
  round.failures.push({ source: config.source.name, error });
  return [];
}

/** Per-source candidates recalled at most when filling a budget (`maxRecallLimit`'s default). */
const DEFAULT_MAX_RECALL_LIMIT = 400;
/** Recall rounds of one `retrieve` at most: the first, and the budget-filling ones. */
const MAX_RECALL_ROUNDS = 4;
