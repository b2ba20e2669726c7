import { fileURLToPath } from 'node:url';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { createTokenCounter, withTokenCache } from '../../src/core/index.ts';
import { createConversationIndex } from '../../src/retrieval/conversation-index.ts';
import { createRetriever } from '../../src/retrieval/retriever.ts';
import { createVectorIndex } from '../../src/retrieval/vector-index.ts';
import { createCharCounter } from '../../src/testing/index.ts';
import { type BenchContext, type BenchMetric, createBenchResult, writeBenchResult } from '../lib/index.ts';
import {
  ctxloomBm25Engine,
  ctxloomConversationEngine,
  ctxloomKnowledgeEngine,
  ctxloomRecallEngine,
} from './ctxloom-engines.ts';
import { type EvalCorpus, loadCmrc, loadLocomo } from './datasets.ts';
import { evaluateHybrid } from './hybrid-suite.ts';
import { packedRecall, recencyRecall } from './packing.ts';
import {
  type Engine,
  flexSearchEngine,
  miniSearchEngine,
  oramaEngine,
  withNeighbourContext,
} from './peers.ts';
import { type RankingScores, scoreRankings } from './ranking-metrics.ts';
import { termScaling } from './term-scaling.ts';
import { buildTimeMs, conversationWalkLatency, interleavedBuildTimesMs, queryLatency } from './timing.ts';

/** A shared-format metric plus whether this run met its target. */
export interface RetrievalMetric extends BenchMetric {
  met?: boolean;
}

/** What {@link run} returns: the metrics and, per engine, the settings used and what the loaders dropped. */
export interface RetrievalBenchOutput {
  metrics: RetrievalMetric[];
  notes: Record<string, unknown>;
  [key: string]: unknown;
}

const percent = (value: number) => Math.round(value * 1000) / 10;
const KS = [1, 5, 10, 20];
const BUDGETS = [1000, 2000, 4000];

/** Runs the retrieval evaluations (LoCoMo, CMRC 2018, latency, build) and writes the results. */
export async function run(context?: BenchContext): Promise<RetrievalBenchOutput> {
  const metrics: RetrievalMetric[] = [];
  const notes: Record<string, unknown> = {};
  const counter = withTokenCache(
    createTokenCounter({ name: 'o200k_base', exact: true, countText: countTokens }),
  );
  const log = context?.log ?? ((line: string) => process.stderr.write(`${line}\n`));

  // BENCH_RETRIEVAL=term-scaling runs the reranker term-cache scaling check alone (about a minute).
  if (process.env.BENCH_RETRIEVAL === 'term-scaling') return termScaling(loadCmrc(), log);
  // BENCH_RETRIEVAL=latency runs the query latency part alone (p50/p90/p99 against the peers).
  if (process.env.BENCH_RETRIEVAL === 'latency') {
    const peers = [
      miniSearchEngine({ chinese: false }),
      oramaEngine({ chinese: false, exact: false }),
      flexSearchEngine({ chinese: false }),
    ];
    return {
      metrics: await latencyMetrics({ corpora: loadLocomo().corpora, peers, bestPeer: undefined, notes }),
      notes,
    };
  }

  // ---- LoCoMo ranking
  const { corpora, report } = loadLocomo();
  notes.locomo = {
    questions: report.questions,
    droppedEvidence: report.droppedEvidence,
    droppedQuestions: report.droppedQuestions,
  };
  const ctxloom = ctxloomConversationEngine({ indexContext: 1, recallLimit: 20 });
  const ablations: Engine[] = [
    withNeighbourContext(miniSearchEngine({ chinese: false })),
    withNeighbourContext(oramaEngine({ chinese: false, exact: false })),
    ctxloomConversationEngine({ indexContext: 0, recallLimit: 20, label: 'ctxloom-no-context' }),
    ctxloomBm25Engine(),
  ];
  const peers: Engine[] = [
    miniSearchEngine({ chinese: false }),
    oramaEngine({ chinese: false, exact: false }),
    flexSearchEngine({ chinese: false }),
  ];
  const locomo = new Map<string, RankingScores>();
  for (const engine of [ctxloom, ...ablations, ...peers]) {
    notes[`settings.${engine.name}`] = engine.settings;
    locomo.set(engine.name, await rank(corpora, engine));
    log(`locomo ${engine.name} ${JSON.stringify(locomo.get(engine.name))}`);
  }
  const ours = locomo.get('ctxloom') as RankingScores;
  const bestPeer = (pick: (scores: RankingScores) => number) =>
    best(peers.map((engine) => [engine.name, pick(locomo.get(engine.name) as RankingScores)]));
  for (const k of KS) {
    const peer = bestPeer((scores) => scores.recall[k] ?? 0);
    const metric: RetrievalMetric = {
      name: `locomo.recall@${k}`,
      value: percent(ours.recall[k] ?? 0),
      unit: '%',
      better: 'higher',
      peer: { name: peer.name, value: percent(peer.value) },
    };
    if (k === 10) {
      metric.target = '≥ best peer + 5 points';
      metric.met = metric.value >= metric.peer!.value + 5;
    }
    metrics.push(metric);
  }
  const allPeer = bestPeer((scores) => scores.allAt10);
  metrics.push({
    name: 'locomo.all-evidence@10',
    value: percent(ours.allAt10),
    unit: '%',
    better: 'higher',
    peer: { name: allPeer.name, value: percent(allPeer.value) },
  });
  const mrrPeer = bestPeer((scores) => scores.mrr);
  metrics.push({
    name: 'locomo.mrr',
    value: percent(ours.mrr),
    unit: '%',
    better: 'higher',
    peer: { name: mrrPeer.name, value: percent(mrrPeer.value) },
  });
  for (const engine of [...ablations, ...peers]) {
    const scores = locomo.get(engine.name) as RankingScores;
    for (const k of KS)
      metrics.push({
        name: `locomo.recall@${k}.${engine.name}`,
        value: percent(scores.recall[k] ?? 0),
        unit: '%',
        better: 'higher',
      });
    metrics.push({
      name: `locomo.all-evidence@10.${engine.name}`,
      value: percent(scores.allAt10),
      unit: '%',
      better: 'higher',
    });
    metrics.push({
      name: `locomo.mrr.${engine.name}`,
      value: percent(scores.mrr),
      unit: '%',
      better: 'higher',
    });
  }

  // ---- LoCoMo packed into a budget (o200k)
  const packLimit = 200;
  notes.packing = `top ${packLimit} of each engine packed greedily as whole turns by ctxloom's injector, o200k_base counts; recency = newest whole turns that fit`;
  const recency = recencyRecall({ corpora, budgets: BUDGETS, counter });
  const packed = new Map<string, Record<number, number>>();
  for (const engine of [ctxloomConversationEngine({ indexContext: 1, recallLimit: packLimit }), ...peers]) {
    packed.set(
      engine.name,
      await packedRecall({ corpora, engine, budgets: BUDGETS, counter, recallLimit: packLimit }),
    );
    log(`packed ${engine.name} ${JSON.stringify(packed.get(engine.name))}`);
  }
  for (const budget of BUDGETS) {
    const value = percent(packed.get('ctxloom')?.[budget] ?? 0);
    const peer = best(peers.map((engine) => [engine.name, packed.get(engine.name)?.[budget] ?? 0]));
    const metric: RetrievalMetric = {
      name: `locomo.packed-recall@${budget / 1000}k`,
      value,
      unit: '%',
      better: 'higher',
      peer: { name: peer.name, value: percent(peer.value) },
    };
    const recencyValue = percent(recency[budget] ?? 0);
    if (budget === 2000) {
      metric.target = '≥ best peer + 5 points';
      metric.met = value >= metric.peer!.value + 5;
    }
    metrics.push(metric);
    metrics.push({
      name: `locomo.packed-recall@${budget / 1000}k.times-recency`,
      value: round(value / Math.max(recencyValue, 0.1)),
      unit: 'x',
      ...(budget === 2000 ? { target: '≥ 8× recency', met: value >= 8 * recencyValue } : {}),
    });
    metrics.push({
      name: `locomo.packed-recall@${budget / 1000}k.recency`,
      value: recencyValue,
      unit: '%',
      better: 'higher',
    });
    for (const engine of peers) {
      metrics.push({
        name: `locomo.packed-recall@${budget / 1000}k.${engine.name}`,
        value: percent(packed.get(engine.name)?.[budget] ?? 0),
        unit: '%',
        better: 'higher',
      });
    }
  }

  // ---- CMRC 2018
  const cmrc = loadCmrc();
  const cmrcOurs = await rank([cmrc], ctxloomKnowledgeEngine());
  const cmrcVariants = [
    ctxloomKnowledgeEngine({ cjk: 'segmenter', label: 'ctxloom-segmenter' }),
    ctxloomKnowledgeEngine({ cjk: 'segmenter+ngram', label: 'ctxloom-segmenter+ngram' }),
  ];
  const cmrcPeersZh = [
    miniSearchEngine({ chinese: true }),
    oramaEngine({ chinese: true, exact: false }),
    flexSearchEngine({ chinese: true }),
  ];
  const cmrcPeersDefault = peers;
  const cmrcScores = new Map<string, RankingScores>();
  for (const engine of [...cmrcVariants, ...cmrcPeersZh]) {
    cmrcScores.set(`${engine.name}${cmrcPeersZh.includes(engine) ? '-zh' : ''}`, await rank([cmrc], engine));
    notes[`settings.cmrc.${engine.name}`] = engine.settings;
  }
  for (const engine of cmrcPeersDefault) cmrcScores.set(`${engine.name}-default`, await rank([cmrc], engine));
  log(`cmrc ctxloom ${JSON.stringify(cmrcOurs)}`);
  const zhPeers = cmrcPeersZh.map((engine) => `${engine.name}-zh`);
  const cmrcBest = (pick: (scores: RankingScores) => number) =>
    best(zhPeers.map((name) => [name, pick(cmrcScores.get(name) as RankingScores)]));
  for (const k of [1, 5, 10]) {
    const peer = cmrcBest((scores) => scores.recall[k] ?? 0);
    const metric: RetrievalMetric = {
      name: `cmrc.recall@${k}`,
      value: percent(cmrcOurs.recall[k] ?? 0),
      unit: '%',
      better: 'higher',
      peer: { name: peer.name, value: percent(peer.value) },
    };
    if (k === 1) {
      metric.target = '≥ best peer configured for Chinese';
      metric.met = metric.value >= metric.peer!.value;
    }
    metrics.push(metric);
  }
  const cmrcMrrPeer = cmrcBest((scores) => scores.mrr);
  metrics.push({
    name: 'cmrc.mrr',
    value: percent(cmrcOurs.mrr),
    unit: '%',
    better: 'higher',
    peer: { name: cmrcMrrPeer.name, value: percent(cmrcMrrPeer.value) },
    target: '≥ best peer configured for Chinese',
    met: percent(cmrcOurs.mrr) >= percent(cmrcMrrPeer.value),
  });
  for (const [name, scores] of cmrcScores) {
    for (const k of [1, 5, 10])
      metrics.push({
        name: `cmrc.recall@${k}.${name}`,
        value: percent(scores.recall[k] ?? 0),
        unit: '%',
        better: 'higher',
      });
    metrics.push({ name: `cmrc.mrr.${name}`, value: percent(scores.mrr), unit: '%', better: 'higher' });
  }

  // ---- Hybrid recall with the local embedder (Universal Sentence Encoder Lite)
  const hybrid = await evaluateHybrid({
    corpora,
    cmrc,
    counter,
    budgets: BUDGETS,
    ks: KS,
    packLimit,
    baselines: {
      lexical: ours,
      lexicalPacked: packed.get('ctxloom') ?? {},
      recency,
      bestPeerPacked: Object.fromEntries(
        BUDGETS.map((budget) => [
          budget,
          best(peers.map((engine) => [engine.name, packed.get(engine.name)?.[budget] ?? 0])),
        ]),
      ),
      cmrcLexical: cmrcOurs,
    },
    log,
  });
  metrics.push(...hybrid.metrics);
  Object.assign(notes, hybrid.notes);

  metrics.push(...(await latencyMetrics({ corpora, peers, bestPeer, notes })));

  const turns = tenThousandTurns(corpora);
  const [buildMsRaw, miniBuildRaw] = interleavedBuildTimesMs([
    () => createConversationIndex().append(turns),
    () => miniSearchEngine({ chinese: false }).build(turns),
  ]);
  const buildMs = round(buildMsRaw ?? 0);
  const miniBuild = round(miniBuildRaw ?? 0);
  metrics.push({
    name: 'index.build-10k-turns',
    value: buildMs,
    unit: 'ms',
    peer: { name: 'minisearch', value: miniBuild },
    target: '< 1000 ms',
    met: buildMs < 1000,
  });

  // ---- Vector index: exact cosine at 100k × 384 (random unit vectors, fixed seed)
  const vectors = createVectorIndex({ dimensions: 384 });
  const random = mulberry32(7);
  const vector = () => Float32Array.from({ length: 384 }, () => random() - 0.5);
  const scratch = new Float32Array(384);
  const vectorBuild = buildTimeMs(() => {
    for (let index = 0; index < 100_000; index++) {
      for (let column = 0; column < 384; column++) scratch[column] = random() - 0.5;
      vectors.add(`v${index}`, scratch);
    }
  }, 1);
  const queries = Array.from({ length: 20 }, vector);
  const searchMs =
    buildTimeMs(() => {
      for (const query of queries) vectors.search(query, { limit: 20 });
    }, 3) / queries.length;
  metrics.push({ name: 'vector.search-100k-384d', value: round(searchMs), unit: 'ms' });
  metrics.push({ name: 'vector.add-100k-384d', value: round(vectorBuild), unit: 'ms' });

  // ---- Query time as the vocabulary grows past the reranker's caches
  const scaling = await termScaling(cmrc, log);
  metrics.push(...scaling.metrics);
  Object.assign(notes, scaling.notes);

  return { metrics, notes };
}

/**
 * Query latency on LoCoMo's longest conversation (conv-47): p50, p90 and p99 of the full
 * retriever, its stages and every peer, interleaved in one run; then the conversation walk with
 * history. `bestPeer` names the peer with the best recall (undefined: latency mode, none ranked).
 */
async function latencyMetrics(input: {
  corpora: EvalCorpus[];
  peers: Engine[];
  bestPeer: ((pick: (scores: RankingScores) => number) => { name: string; value: number }) | undefined;
  notes: Record<string, unknown>;
}): Promise<RetrievalMetric[]> {
  const { corpora, peers, bestPeer, notes } = input;
  const metrics: RetrievalMetric[] = [];
  const ctxloom = ctxloomConversationEngine({ indexContext: 1, recallLimit: 20 });
  // ---- Speed: query p50 on the 689-turn conv-47; index build for 10k turns
  const longest = corpora.reduce((left, right) =>
    right.documents.length > left.documents.length ? right : left,
  );
  const recallOnly = ctxloomRecallEngine({ indexContext: 1 });
  notes.latency = {
    corpus: `${longest.name} (${longest.documents.length} turns, ${longest.questions.length} questions), 1 warm-up + 7 interleaved timed passes, top 10, each query timed alone and awaited`,
    perQuery: {
      ctxloom:
        'full retriever: analyse the query once (NFKC/ASCII, stopwords, stemming), BM25 over turns indexed with their neighbours (top 20, MaxScore pruning), 20 candidates with content and fingerprint, rerank (dedupe, 4 signals incl. query-term overlap with each passage, weighted mean, sort), inject into a 0-token budget, through the async RecallSource interface; returns ranked candidates with scores and signals',
      'ctxloom-recall': 'the first stage alone: conversation-index recall(), top 10 candidates',
      'ctxloom-bm25-only':
        'the BM25 index over the bare turns, top 10 hits with scores — the like-for-like comparison with FlexSearch (same documents, ranked ids out)',
      flexsearch:
        'FlexSearch 0.8 preset score (resolution 9 + context depth 2): encode the query (charset, English stemmer, stopword filter), union the position-bucket postings (suggest: true), top 10 numeric ids — no per-document scores, no BM25',
      minisearch: 'MiniSearch 7: BM25+ over the bare turns, OR, every match scored and sorted, top 10',
      orama: 'Orama 3: BM25, prefix matching, top 10',
    },
  };
  const latency = await queryLatency([ctxloom, recallOnly, ctxloomBm25Engine(), ...peers], longest);
  notes.latencyLoadAverage = latency.loadAverage;
  const p50 = (name: string) => round(latency.p50.get(name) ?? 0);
  const fastest = best(peers.map((engine) => [engine.name, -p50(engine.name)]));
  const fastestP50 = -fastest.value;
  const ourLatency = p50('ctxloom');
  metrics.push({
    name: 'query.p50',
    value: ourLatency,
    unit: 'µs',
    peer: { name: fastest.name, value: fastestP50 },
    target: '≤ best peer',
    met: ourLatency <= fastestP50,
  });
  if (bestPeer !== undefined) {
    const qualityPeer = bestPeer((scores) => scores.recall[10] ?? 0).name;
    metrics.push({
      name: 'query.p50.vs-best-quality-peer',
      value: ourLatency,
      unit: 'µs',
      peer: { name: qualityPeer, value: p50(qualityPeer) },
      target: '≤ the peer with the best LoCoMo recall@10',
      met: ourLatency <= p50(qualityPeer),
    });
  }
  const p99 = (name: string) => round(latency.p99.get(name) ?? 0);
  metrics.push({
    name: 'query.p99',
    value: p99('ctxloom'),
    unit: 'µs',
    peer: { name: fastest.name, value: p99(fastest.name) },
    target: '≤ the fastest peer (by p50)',
    met: p99('ctxloom') <= p99(fastest.name),
  });
  for (const name of ['ctxloom-recall', 'ctxloom-bm25-only', ...peers.map((engine) => engine.name)]) {
    metrics.push({ name: `query.p99.${name}`, value: p99(name), unit: 'µs' });
  }
  metrics.push({
    name: 'query.p50.bm25-only.vs-fastest-peer',
    value: p50('ctxloom-bm25-only'),
    unit: 'µs',
    peer: { name: fastest.name, value: fastestP50 },
    target: '≤ best peer (same documents, ranked ids out)',
    met: p50('ctxloom-bm25-only') <= fastestP50,
  });
  metrics.push({
    name: 'query.p50.recall-only.vs-fastest-peer',
    value: p50('ctxloom-recall'),
    unit: 'µs',
    peer: { name: fastest.name, value: fastestP50 },
  });
  for (const name of ['ctxloom-recall', 'ctxloom-bm25-only', ...peers.map((engine) => engine.name)]) {
    metrics.push({ name: `query.p50.${name}`, value: p50(name), unit: 'µs' });
  }
  for (const name of [
    'ctxloom',
    'ctxloom-recall',
    'ctxloom-bm25-only',
    ...peers.map((engine) => engine.name),
  ]) {
    metrics.push({ name: `query.p90.${name}`, value: round(latency.p90.get(name) ?? 0), unit: 'µs' });
  }
  // The bench engines pass no history, so the rewriter is idle above; an agent passes it.
  const walkCounter = createCharCounter();
  const walkOver = async (corpus: EvalCorpus) => {
    const walkIndex = createConversationIndex({ indexContext: 1 });
    walkIndex.append(corpus.documents);
    const walkRetriever = createRetriever({ sources: [walkIndex], recallLimit: 20 });
    return conversationWalkLatency(
      (query, history) => walkRetriever.retrieve({ query, history, maxTokens: 2000, counter: walkCounter }),
      corpus,
      { recentMessages: 5, warmup: 0 },
    );
  };
  // Warm-up: another conversation walked the same way (its messages are not conv-47's).
  await walkOver(corpora.find((corpus) => corpus !== longest) ?? longest);
  const walk = await walkOver(longest);
  notes.latencyWithHistory = `${longest.name} walked in order once after a warm-up walk over another conversation: the question at turn i (questions cycled) with turns i−5..i−1 as history, full retriever (rewrite on), 2000-token budget (character counter)`;
  metrics.push({ name: 'query.p50.ctxloom-with-history', value: round(walk.p50), unit: 'µs' });
  metrics.push({ name: 'query.p90.ctxloom-with-history', value: round(walk.p90), unit: 'µs' });

  return metrics;
}

// Deterministic PRNG so every run searches the same vectors.
function mulberry32(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

function rank(corpora: EvalCorpus[], engine: Engine): Promise<RankingScores> {
  return scoreRankings(
    corpora,
    (corpus) => {
      const searcher = engine.build(corpus.documents);
      return (question) => searcher.search(question, 20);
    },
    KS,
  );
}

function best(entries: Array<[string, number]>): { name: string; value: number } {
  let winner = { name: '', value: Number.NEGATIVE_INFINITY };
  for (const [name, value] of entries) if (value > winner.value) winner = { name, value };
  return winner;
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

function tenThousandTurns(corpora: EvalCorpus[]) {
  const all = corpora.flatMap((corpus) =>
    corpus.documents.map((document) => ({ ...document, id: `${corpus.name}:${document.id}` })),
  );
  return Array.from({ length: 10_000 }, (_, index) => {
    const document = all[index % all.length] as { id: string; text: string };
    return { id: `${document.id}#${Math.floor(index / all.length)}`, text: document.text };
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const output = await run();
  const result = { ...createBenchResult('retrieval', output.metrics), notes: output.notes };
  const path = writeBenchResult(result);
  for (const metric of output.metrics) {
    const peer = metric.peer === undefined ? '' : `  (peer ${metric.peer.name}: ${metric.peer.value})`;
    const target =
      metric.target === undefined ? '' : `  target ${metric.target}: ${metric.met ? 'met' : 'NOT met'}`;
    process.stdout.write(`${metric.name}: ${metric.value} ${metric.unit}${peer}${target}\n`);
  }
  process.stdout.write(`→ ${path}\n`);
}
