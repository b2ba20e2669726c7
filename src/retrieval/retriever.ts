import { type ContextBlock, CtxloomError, type Message, type TokenCounter } from '../core/index.ts';
import type { RankedCandidate, RetrievalCandidate } from './candidate.ts';
import { injectRetrieval } from './inject-retrieval.ts';
import { type RewrittenQuery, rewriteQuery } from './query-rewriter.ts';
import type { RecallSource } from './recall-source.ts';
import { createReranker, type Reranker } from './reranker.ts';

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

  return {
    async retrieve(request) {
      const query =
        rewrite === false || request.history === undefined
          ? { query: request.query, original: request.query, addedWords: [] }
          : rewriteQuery({ query: request.query, messages: request.history, ...rewrite });
      let failures: RetrievalResult['failures'] = [];
      // Sources that may hold more than they returned (they filled their limit).
      let more = false;
      const limitOf = (config: RecallSourceConfig, scale: number): number => {
        const base = config.recallLimit ?? recallLimit;
        return Math.max(base, Math.min(maxRecallLimit, Math.ceil(base * scale)));
      };
      const requestOf = (limit: number) => ({
        query: query.query,
        limit,
        ...(request.signal === undefined ? {} : { signal: request.signal }),
      });
      const kept = (config: RecallSourceConfig, limit: number, candidates: RetrievalCandidate[]) => {
        if (candidates.length >= limit && limit < maxRecallLimit) more = true;
        const minScore = config.minScore ?? 0;
        const passes = (candidate: RetrievalCandidate) => candidate.vectorScore >= minScore;
        return candidates.every(passes) ? candidates : candidates.filter(passes);
      };
      const failed = (config: RecallSourceConfig, error: unknown): RetrievalCandidate[] => {
        if (request.signal?.aborted === true) throw error;
        failures.push({ source: config.source.name, error });
        return [];
      };
      const recallFrom = async (config: RecallSourceConfig, scale: number): Promise<RetrievalCandidate[]> => {
        const limit = limitOf(config, scale);
        try {
          return kept(config, limit, await config.source.recall(requestOf(limit)));
        } catch (error) {
          return failed(config, error);
        }
      };
      const rank = (recalled: readonly RetrievalCandidate[]) => {
        const ranked = reranker.rerank({
          query: query.query,
          candidates: recalled,
          ...(options.minFinalScore === undefined ? {} : { minScore: options.minFinalScore }),
        });
        const blocks = injectRetrieval({
          candidates: ranked,
          maxTokens: request.maxTokens,
          counter: request.counter,
          ...(request.layer === undefined ? {} : { layer: request.layer }),
          ...(request.sourceName === undefined ? {} : { source: request.sourceName }),
        });
        return { ranked, blocks };
      };
      const only = configs.length === 1 ? (configs[0] as RecallSourceConfig) : undefined;
      let scale = 1;
      let result: { ranked: RankedCandidate[]; blocks: ContextBlock[] } | undefined;
      // The first round, and while room is left for another block of the packed ones' mean
      // size and a source may hold more, rounds that fill the budget — sized by the share of
      // the budget the last round filled (at least double), up to `maxRecallLimit` per source.
      for (let rounds = 0; rounds < MAX_RECALL_ROUNDS; rounds++) {
        if (result !== undefined) {
          if (!more || result.blocks.length === 0) break;
          const used = result.blocks.reduce((sum, block) => sum + block.tokens, 0);
          if (request.maxTokens - used < used / result.blocks.length) break;
          scale = Math.max(scale * 2, Math.ceil(((scale * request.maxTokens) / used) * 1.25));
        }
        failures = [];
        more = false;
        let recalled: RetrievalCandidate[];
        if (only !== undefined) {
          // One source: its promise awaited here (no async wrapper per round, nor Promise.all).
          const limit = limitOf(only, scale);
          try {
            recalled = kept(only, limit, await only.source.recall(requestOf(limit)));
          } catch (error) {
            recalled = failed(only, error);
          }
        } else {
          recalled = (await Promise.all(configs.map((config) => recallFrom(config, scale)))).flat();
        }
        result = rank(recalled);
      }
      result ??= { ranked: [], blocks: [] };
      return { query, ranked: result.ranked, blocks: result.blocks, failures };
    },
  };
}

/** Per-source candidates recalled at most when filling a budget (`maxRecallLimit`'s default). */
const DEFAULT_MAX_RECALL_LIMIT = 400;
/** Recall rounds of one `retrieve` at most: the first, and the budget-filling ones. */
const MAX_RECALL_ROUNDS = 4;
