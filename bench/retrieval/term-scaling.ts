import { loadavg } from 'node:os';
import { createAnalyzer } from '../../src/retrieval/analyzer.ts';
import { ctxloomKnowledgeEngine } from './ctxloom-engines.ts';
import type { EvalCorpus, EvalDocument, EvalQuestion } from './datasets.ts';
import type { RetrievalMetric } from './index.ts';

const CJK_FIRST = 0x4e00;
const CJK_SIZE = 0x9fff - CJK_FIRST + 1;

/**
 * The text with every CJK Unified Ideograph shifted by `shift` code points within the block:
 * a bijection, so the copy keeps the paragraph's structure and term statistics while sharing
 * (almost) no CJK term with the original. Real data in, a larger vocabulary out.
 */
function shiftCjk(text: string, shift: number): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    out +=
      code >= CJK_FIRST && code < CJK_FIRST + CJK_SIZE
        ? String.fromCodePoint(CJK_FIRST + ((code - CJK_FIRST + shift) % CJK_SIZE))
        : char;
  }
  return out;
}

function distinctTerms(documents: readonly EvalDocument[]): number {
  const analyzer = createAnalyzer();
  const terms = new Set<string>();
  for (const document of documents) for (const term of analyzer.analyze(document.text)) terms.add(term);
  return terms.size;
}

/**
 * CMRC 2018 plus vocabulary-disjoint copies (see {@link shiftCjk}) of its paragraphs and
 * questions, paragraph by paragraph, until the corpus holds `targetTerms` distinct analysed terms.
 */
function widenCorpus(cmrc: EvalCorpus, targetTerms: number): EvalCorpus {
  const documents = [...cmrc.documents];
  // Each original question is followed by its shifted copies, so queries roam the whole vocabulary.
  const copiesOf = new Map<EvalQuestion, EvalQuestion[]>(cmrc.questions.map((question) => [question, []]));
  const analyzer = createAnalyzer();
  const terms = new Set<string>();
  for (const document of documents) for (const term of analyzer.analyze(document.text)) terms.add(term);
  const byParagraph = new Map<string, EvalQuestion[]>();
  for (const question of cmrc.questions)
    for (const id of question.evidence) byParagraph.set(id, [...(byParagraph.get(id) ?? []), question]);
  for (let copy = 1; terms.size < targetTerms; copy++) {
    const shift = copy * 0x1357;
    for (const document of cmrc.documents) {
      if (terms.size >= targetTerms) break;
      const id = `${document.id}~${copy}`;
      const text = shiftCjk(document.text, shift);
      for (const term of analyzer.analyze(text)) terms.add(term);
      documents.push({ id, text });
      for (const question of byParagraph.get(document.id) ?? [])
        copiesOf.get(question)?.push({ question: shiftCjk(question.question, shift), evidence: [id] });
    }
  }
  const questions = cmrc.questions.flatMap((question) => [question, ...(copiesOf.get(question) ?? [])]);
  return { name: `${cmrc.name}+shifted`, documents, questions };
}

/**
 * Query latency of the full ctxloom retriever over CMRC 2018 (~47k distinct terms) and over
 * CMRC widened to ~110k terms, interleaved round by round. The reranker's term cache must not
 * fall off a cliff when the vocabulary outgrows it: target p50 ratio ≤ 1.5.
 */
export async function termScaling(
  cmrc: EvalCorpus,
  log: (line: string) => void,
  rounds = 3,
): Promise<{ metrics: RetrievalMetric[]; notes: Record<string, unknown> }> {
  const corpora = [cmrc, widenCorpus(cmrc, 110_000)];
  const searchers = corpora.map((corpus) => ctxloomKnowledgeEngine().build(corpus.documents));
  for (const [index, searcher] of searchers.entries())
    for (const question of (corpora[index] as EvalCorpus).questions)
      await searcher.search(question.question, 10);
  const samples = corpora.map((): number[] => []);
  const loadStart = loadavg()[0] ?? 0;
  for (let round = 0; round < rounds; round++) {
    for (const [index, searcher] of searchers.entries()) {
      for (const question of (corpora[index] as EvalCorpus).questions) {
        const begin = performance.now();
        await searcher.search(question.question, 10);
        samples[index]?.push((performance.now() - begin) * 1000);
      }
    }
  }
  const terms = corpora.map((corpus) => distinctTerms(corpus.documents));
  const metrics: RetrievalMetric[] = [];
  const statistics: Array<[string, (values: number[]) => number]> = [
    ['p50', (values) => quantile(values, 0.5)],
    ['p90', (values) => quantile(values, 0.9)],
    ['mean', (values) => values.reduce((sum, value) => sum + value, 0) / values.length],
  ];
  for (const [statistic, of] of statistics) {
    const [small, large] = samples.map(of) as [number, number];
    const ratio = Math.round((large / small) * 100) / 100;
    log(
      `term scaling ${statistic}: ${terms.join(' vs ')} terms, ${small.toFixed(1)} vs ${large.toFixed(1)} µs, ratio ${ratio}`,
    );
    const metric: RetrievalMetric = {
      name: `term-scaling.query.${statistic}.ratio`,
      value: ratio,
      unit: 'x',
      better: 'lower',
    };
    if (statistic !== 'p90') {
      metric.target = '≤ 1.5 (no cliff when the vocabulary grows)';
      metric.met = ratio <= 1.5;
    }
    metrics.push(
      { name: `term-scaling.query.${statistic}.small`, value: round(small), unit: 'µs' },
      { name: `term-scaling.query.${statistic}.large`, value: round(large), unit: 'µs' },
      metric,
    );
  }
  return {
    metrics,
    notes: {
      termScaling: {
        corpora: corpora.map((corpus, index) => ({
          name: corpus.name,
          documents: corpus.documents.length,
          questions: corpus.questions.length,
          distinctTerms: terms[index],
        })),
        method:
          'full retriever (knowledge base, BM25 top 20, seed reranker), top 10; the large corpus is CMRC 2018 plus copies of its paragraphs and questions with every CJK ideograph shifted by a fixed offset within the block (same structure, disjoint vocabulary), read in place; each original question followed by its shifted copies; one warm-up pass, then rounds interleaved by corpus, each query timed alone; p50, p90 and mean of all timed queries',
        rounds,
        loadAverage: { start: loadStart, end: loadavg()[0] ?? 0 },
      },
    },
  };
}

function quantile(values: number[], fraction: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  if (fraction === 0.5 && sorted.length % 2 === 0) {
    const middle = sorted.length / 2;
    return ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
  }
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] as number;
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
