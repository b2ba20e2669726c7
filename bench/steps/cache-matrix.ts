import type { TokenCounter } from '../../src/core/index.ts';
import type { BenchContext } from '../lib/context.ts';
import type { BenchMetric } from '../lib/result.ts';
import { type RecordedCall, sentBefore, simulateCache } from './cache-share.ts';
import { runNotebookPath } from './notebook-path.ts';
import { runProcessPath } from './process-path.ts';
import { loadChineseFiles, loadFiles, loadLongTurns, runToolSession } from './session.ts';

/** Turn marks measured by default; `BENCH_STEPS_TURNS=30,100,300` extends the run. */
const DEFAULT_MARKS = [30, 100];

interface SessionKind {
  name: string;
  files: { path: string; text: string }[];
  reads: (turn: number) => number;
  /** Window of the middleware run (the plain conversation fills a small one early). */
  window: number;
  /** Window of the notebook run (its manifest's fixed layers take ~2k tokens). */
  notebookWindow: number;
}

/** Tool reads per turn in a tool-heavy session: files read in most turns (1, 2, 1, 1, 0, …). */
export function heavyReadsOf(turn: number): number {
  return [1, 2, 1, 1, 0][turn % 5] as number;
}

/** Tokens of `call` (tool schemas first) that repeat the previous call's prefix, block by block. */
function previousPrefix(call: RecordedCall, previous: RecordedCall | undefined): number {
  if (previous === undefined || previous.toolHash !== call.toolHash) return 0;
  let tokens = call.toolTokens;
  for (let index = 0; index < call.blocks.length; index++) {
    const block = call.blocks[index] as RecordedCall['blocks'][number];
    if (previous.blocks[index]?.hash !== block.hash) break;
    tokens += block.tokens;
  }
  return tokens;
}

/**
 * Shares (%) of the input tokens of the calls from `from` (steady state) up to `to`: `prefix`,
 * what repeats the previous call's prefix (issue 26's measure: what a cache holding only the
 * last call serves); `served`, what the simulated Anthropic cache serves (it also reads older
 * entries, so a cut that moves back can hit a prefix written turns ago); `ceiling`, tokens
 * sent before in any position.
 */
function shares(calls: readonly RecordedCall[], from: number, to: number) {
  const served = simulateCache(calls).slice(from, to);
  const again = sentBefore(calls).slice(from, to);
  const total = served.reduce((sum, entry) => sum + entry.total, 0);
  const percent = (value: number) => (total === 0 ? 0 : (100 * value) / total);
  let prefix = 0;
  for (let index = from; index < to; index++) {
    prefix += previousPrefix(calls[index] as RecordedCall, calls[index - 1]);
  }
  return {
    prefix: percent(prefix),
    served: percent(served.reduce((sum, entry) => sum + entry.served, 0)),
    ceiling: percent(again.reduce((sum, entry) => sum + entry.again, 0)),
    calls: served.length,
  };
}

/** The naive approach on the SDK's own prompt: drop the oldest messages until the call fits. */
export function naiveDropOldest(call: RecordedCall, budget: number): RecordedCall {
  const blocks = call.blocks.map((block) => ({ ...block, breakpoint: false }));
  let systemCount = 0;
  while (blocks[systemCount]?.system === true) systemCount++;
  let total = call.toolTokens + blocks.reduce((sum, block) => sum + block.tokens, 0);
  while (total > budget && blocks.length > systemCount + 1) {
    const [removed] = blocks.splice(systemCount, 1);
    total -= removed?.tokens ?? 0;
  }
  const system = blocks[systemCount - 1];
  if (system !== undefined) system.breakpoint = true;
  const last = blocks.at(-1);
  if (last !== undefined) last.breakpoint = true;
  return { ...call, blocks };
}

/**
 * Issue 26's cache matrix: tool-heavy sessions (English repository files, Chinese CMRC files)
 * and a plain conversation, each run once to the largest mark through `ctxloomMiddleware`
 * (stored cut, the default), through the middleware with decision 021's chunked cut,
 * through `engine.runTurn` and through a process turn's agent (`engine.runTurn` on a session
 * whose turns run a LangGraph process, decision 066); measured at every mark (a session's first N turns are the
 * N-turn session: the calls are causal). Per mark: the share of input tokens an Anthropic
 * prompt cache serves at steady state, its ceiling (tokens sent before in any position), and
 * naive drop-oldest on the SDK's own prompts of the same turns.
 */
export async function runCacheMatrix(
  context: BenchContext,
  counter: TokenCounter,
): Promise<{ metrics: BenchMetric[]; notes: string[] }> {
  const marks = (process.env.BENCH_STEPS_TURNS ?? DEFAULT_MARKS.join(','))
    .split(',')
    .map((mark) => Number.parseInt(mark, 10))
    .filter((mark) => mark > 0);
  const turns = loadLongTurns(Math.max(...marks));
  const english = loadFiles(counter).filter((file) => file.tokens <= 4500);
  const kinds: SessionKind[] = [
    { name: 'tool-en', files: english, reads: heavyReadsOf, window: 16_000, notebookWindow: 16_000 },
    {
      name: 'tool-zh',
      files: loadChineseFiles(counter),
      reads: heavyReadsOf,
      window: 16_000,
      notebookWindow: 16_000,
    },
    { name: 'plain', files: english, reads: () => 0, window: 3000, notebookWindow: 6000 },
  ];
  const metrics: BenchMetric[] = [];
  const notes: string[] = [];
  for (const kind of kinds) {
    const base = { counter, turns, files: kind.files, reads: kind.reads, window: kind.window };
    const started = performance.now();
    const stored = await runToolSession(base);
    const chunked = await runToolSession({ ...base, historyCut: false });
    const notebook = await runNotebookPath({ ...base, window: kind.notebookWindow });
    const processRun = await runProcessPath({ ...base, window: kind.notebookWindow });
    const processed = processRun.calls;
    context.log(
      `${kind.name}: ${turns.length} turns, ${stored.length} middleware, ${notebook.length} notebook and ${processed.length} process calls in ${((performance.now() - started) / 1000).toFixed(0)} s`,
    );
    const budget = kind.window - Math.floor(kind.window * 0.25);
    const naive = stored.map((record) => naiveDropOldest(record.raw, budget));
    // Steady state: the middleware from the first call the SDK alone could not fit; the
    // notebook from its first move of the cut.
    const startTurn = stored.find((record) => record.rawTokens > budget)?.turn ?? turns.length;
    const notebookStart = notebook.find((call) => call.moved)?.turn ?? turns.length;
    const processStart = processed.find((call) => call.moved)?.turn ?? turns.length;
    for (const mark of marks) {
      if (mark > turns.length) continue;
      // The calls from the steady state's first turn (`from`) up to the mark: indexes in `list`.
      const range = (list: readonly { turn: number }[], from: number): [number, number] => {
        const at = (turn: number) => {
          const index = list.findIndex((entry) => entry.turn >= turn);
          return index < 0 ? list.length : index;
        };
        return [at(from), at(mark)];
      };
      const steadyShares = (list: readonly { turn: number; sent: RecordedCall }[], from: number) =>
        shares(
          list.map((entry) => entry.sent),
          ...range(list, from),
        );
      const [from, to] = range(stored, startTurn);
      const ours = shares(
        stored.map((record) => record.sent),
        from,
        to,
      );
      const before = shares(
        chunked.map((record) => record.sent),
        from,
        to,
      );
      const drop = shares(naive, from, to);
      const engine = steadyShares(notebook, notebookStart);
      const agents = steadyShares(processed, processStart);
      const ofCeiling = (entry: { prefix: number; ceiling: number }) =>
        (100 * entry.prefix) / Math.max(1e-9, entry.ceiling);
      const servedOf = (entry: { served: number; ceiling: number }) =>
        (100 * entry.served) / Math.max(1e-9, entry.ceiling);
      const goal = kind.name === 'plain' ? 85 : 90;
      for (const [path, entry] of [
        ['middleware', ours],
        ['runTurn', engine],
        ['process', agents],
      ] as const) {
        // A path whose cut has not moved by this mark has no steady state to measure yet.
        if (entry.calls === 0) continue;
        metrics.push({
          name: `steps.cache.${kind.name}.${mark}.${path}.prefix-of-ceiling`,
          value: ofCeiling(entry),
          unit: '%',
          peer: { name: 'naive drop-oldest', value: ofCeiling(drop) },
          target: `≥ ${goal} % of the ceiling (previous call's prefix ${entry.prefix.toFixed(1)} % of ${entry.ceiling.toFixed(1)} %, ${entry.calls} steady calls)`,
          better: 'higher',
        });
      }
      const line = (entry: { prefix: number; served: number; ceiling: number }) =>
        `${entry.prefix.toFixed(1)} % (${ofCeiling(entry).toFixed(1)} % of its ceiling ${entry.ceiling.toFixed(1)} %; simulated cache ${entry.served.toFixed(1)} %, ${servedOf(entry).toFixed(1)} %)`;
      notes.push(
        `${kind.name} at ${mark} turns (window ${kind.window}, notebook ${kind.notebookWindow}; steady state from turn ${startTurn}, runTurn ${notebookStart}) — previous call's prefix: middleware ${line(ours)}; decision 021's chunked cut ${line(before)}; naive drop-oldest ${line(drop)}; engine.runTurn ${line(engine)}; a process turn's agent (from turn ${processStart}) ${line(agents)}.`,
      );
    }
    const over = stored.filter(
      (record) => record.sentTokens > budget || record.sentTokens !== record.compiled?.report.totalTokens,
    ).length;
    const processOff = processed.filter(
      (call) => call.sentTokens > (call.inputBudget ?? 0) || call.sentTokens !== call.loggedTokens,
    ).length;
    notes.push(
      `${kind.name}: middleware calls over budget or whose report ≠ tokens sent: ${over} of ${stored.length}; process agent calls over budget or whose logged report ≠ tokens sent: ${processOff} of ${processed.length}.`,
    );
    metrics.push({
      name: `steps.process.${kind.name}.overruns-or-mismatch`,
      value: processOff,
      unit: 'calls',
      target: `0 agent calls over the input budget or whose logged report ≠ tokens sent (process turns, ${kind.name})`,
      better: 'lower',
    });
    metrics.push({
      name: `steps.process.${kind.name}.unaccounted`,
      value: processRun.unaccounted,
      unit: 'messages',
      target: '0 history messages an agent call neither sent, summarised, recalled nor left recallable',
      better: 'lower',
    });
    const median = (values: readonly number[]) =>
      [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
    const { turnCpuMs } = processRun;
    const [first, last] = [median(turnCpuMs.slice(0, 10)), median(turnCpuMs.slice(-10))];
    metrics.push({
      name: `steps.process.${kind.name}.turn-cpu.last-vs-first`,
      value: last / Math.max(1e-9, first),
      unit: 'x',
      target: `≤ 2× (CPU time of a process turn, median of the last ten of ${turnCpuMs.length} turns vs the first ten: ${first.toFixed(0)} → ${last.toFixed(0)} ms)`,
      better: 'lower',
    });
  }
  return { metrics, notes };
}
