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
  /** Default 20 (seed 001), integer ≥ 1. */
  recallLimit?: number;
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
 * `minScore`) → Reranker (dedup + weighted signals) → RetrievalInjector (budget).
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
      const failures: RetrievalResult['failures'] = [];
      const recallFrom = async (config: RecallSourceConfig): Promise<RetrievalCandidate[]> => {
        try {
          const candidates = await config.source.recall({
            query: query.query,
            limit: config.recallLimit ?? recallLimit,
            ...(request.signal === undefined ? {} : { signal: request.signal }),
          });
          const minScore = config.minScore ?? 0;
          const passes = (candidate: RetrievalCandidate) => candidate.vectorScore >= minScore;
          return candidates.every(passes) ? candidates : candidates.filter(passes);
        } catch (error) {
          if (request.signal?.aborted === true) throw error;
          failures.push({ source: config.source.name, error });
          return [];
        }
      };
      // One source needs no Promise.all (nor the copy of flat()).
      const recalled =
        configs.length === 1
          ? await recallFrom(configs[0] as RecallSourceConfig)
          : (await Promise.all(configs.map(recallFrom))).flat();
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
      return { query, ranked, blocks, failures };
    },
  };
}
