/**
 * `npm run bench -- long-session` (issue 25, decision 040): the LoCoMo conversations replayed
 * as sessions through `engine.runTurn` with a new session's manifest, at windows 4,000 /
 * 8,000 / 16,000; every QA question asked at the end through `engine.compile(id, { query })`.
 * Reports the share of evidence turns in what the call would send against plain recency and
 * "summary + recent" with the same history tokens, messages left unaccounted at any call,
 * tokens per turn, turn time at the end vs the start, and report = sent on every call.
 *
 * `BENCH_LONG_WINDOWS=8000` and `BENCH_LONG_CONVERSATIONS=2` narrow the run.
 */
import { loadavg } from 'node:os';
import type { BenchContext, BenchMetric } from '../lib/index.ts';
import { loadLocomoReplays } from './locomo-replay.ts';
import { type ReplayResult, replayConversation } from './replay-session.ts';

export async function run(context: BenchContext) {
  const windows = (process.env.BENCH_LONG_WINDOWS ?? '4000,8000,16000').split(',').map(Number);
  const all = loadLocomoReplays();
  const conversations = all.slice(0, Number(process.env.BENCH_LONG_CONVERSATIONS ?? all.length));
  const metrics: BenchMetric[] = [];
  const notes: string[] = [];
  const dropped = conversations.reduce((sum, conversation) => sum + conversation.droppedEvidence.length, 0);
  notes.push(
    `LoCoMo (Maharana et al., ACL 2024; CC BY-NC 4.0): ${conversations.length} conversations, ${conversations.reduce((sum, c) => sum + c.turns.length, 0)} turns, ${conversations.reduce((sum, c) => sum + c.questions.length, 0)} questions of categories 1–4; ${dropped} evidence ids dropped (malformed or naming no turn), ${conversations.reduce((sum, c) => sum + c.droppedQuestions, 0)} questions left without evidence.`,
  );
  for (const window of windows) {
    const results: ReplayResult[] = [];
    for (const conversation of conversations) {
      const started = performance.now();
      const result = await replayConversation({ conversation, window });
      results.push(result);
      context.log(
        `window ${window} ${conversation.id}: ${result.turns} turns, evidence ${pct(result.present.ctxloom, result.evidence)} (recency ${pct(result.present.recency, result.evidence)}), unaccounted ≤ ${result.maxUnaccounted}, mismatches ${result.reportMismatches}, turn ${result.turnMs.first.toFixed(1)} → ${result.turnMs.last.toFixed(1)} ms (CPU ${result.turnCpuMs.first.toFixed(1)} → ${result.turnCpuMs.last.toFixed(1)}), ${((performance.now() - started) / 1000).toFixed(0)} s, load ${loadavg()[0]?.toFixed(1)}`,
      );
    }
    const sum = (pick: (result: ReplayResult) => number) =>
      results.reduce((total, result) => total + pick(result), 0);
    const evidence = sum((result) => result.evidence);
    const share = (pick: (result: ReplayResult) => number) => (100 * sum(pick)) / Math.max(1, evidence);
    const recency = share((result) => result.present.recency);
    metrics.push(
      {
        name: `evidence.window-${window}.ctxloom`,
        value: share((result) => result.present.ctxloom),
        unit: '%',
        better: 'higher',
        peer: { name: 'recency, same tokens', value: recency },
        target: window === 8000 ? '≥ 80 % and ≥ recency + 40 points' : 'higher than recency',
      },
      {
        name: `evidence.window-${window}.ctxloom-with-summary-lines`,
        value: share((result) => result.present.ctxloomWithSummaryLines),
        unit: '%',
        better: 'higher',
        peer: {
          name: 'summary + recent, same tokens',
          value: share((result) => result.present.summaryPlusRecent),
        },
      },
      {
        name: `questions-all-evidence.window-${window}.ctxloom`,
        value:
          (100 * sum((result) => result.questionsAll.ctxloom)) /
          Math.max(
            1,
            sum((result) => result.questions),
          ),
        unit: '%',
        better: 'higher',
        peer: {
          name: 'recency, same tokens',
          value:
            (100 * sum((result) => result.questionsAll.recency)) /
            Math.max(
              1,
              sum((result) => result.questions),
            ),
        },
      },
      {
        name: `unaccounted-messages.window-${window}.max-per-call`,
        value: Math.max(...results.map((result) => result.maxUnaccounted)),
        unit: 'messages',
        better: 'lower',
        target: '0',
      },
      {
        name: `report-vs-sent.window-${window}.mismatched-calls`,
        value: sum((result) => result.reportMismatches),
        unit: `of ${sum((result) => result.calls)} calls`,
        better: 'lower',
        target: '0',
      },
      {
        name: `compactions.window-${window}`,
        value: sum((result) => result.compactions),
        unit: 'moves of the cut',
      },
      {
        name: `tokens-per-turn.window-${window}.mean`,
        value: sum((result) => result.tokensPerTurn.mean) / results.length,
        unit: 'tokens',
        better: 'lower',
      },
      {
        name: `turn-cpu.window-${window}.last-vs-first`,
        value:
          sum((result) => result.turnCpuMs.last) /
          Math.max(
            1e-9,
            sum((result) => result.turnCpuMs.first),
          ),
        unit: 'x',
        better: 'lower',
        target: '≤ 2× (CPU time, median of the last ten turns vs the first ten)',
      },
      {
        name: `turn-time.window-${window}.last-vs-first`,
        value:
          sum((result) => result.turnMs.last) /
          Math.max(
            1e-9,
            sum((result) => result.turnMs.first),
          ),
        unit: 'x',
        better: 'lower',
        target: '≤ 2× (median of the last ten turns vs the first ten)',
      },
    );
  }
  notes.push(
    `load average at the end: ${loadavg()
      .map((value) => value.toFixed(1))
      .join(' / ')}`,
  );
  return { metrics, notes };
}

function pct(part: number, whole: number): string {
  return `${((100 * part) / Math.max(1, whole)).toFixed(1)} %`;
}
