import { withTokenCache } from '../../src/core/index.ts';
import { createO200kCounter } from '../../src/tokenizers/index.ts';
import type { BenchContext } from '../lib/context.ts';
import type { BenchMetric } from '../lib/result.ts';
import { heavyReadsOf } from './cache-matrix.ts';
import { runProcessPath } from './process-path.ts';
import { loadChineseFiles, loadLongTurns } from './session.ts';

/** Turns of the long process session: `BENCH_STEPS_LONG_TURNS` (unset or 0: not run). */
function longTurns(): number {
  const turns = Number.parseInt(process.env.BENCH_STEPS_LONG_TURNS ?? '0', 10);
  return Number.isSafeInteger(turns) && turns >= 400 ? turns : 0;
}

const median = (values: readonly number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/**
 * A process turn's cost against the session's length (decision 083): the Chinese tool session of
 * the cache matrix (one `reader` agent, files read in most turns, 16k window) through a process
 * turn for `BENCH_STEPS_LONG_TURNS` turns (≥ 400; 1,000 takes ~2 minutes of CPU). The window is
 * full from turn ~20 and the history grows by ~5 messages a turn, so turns 200–300 against the
 * last hundred compare one turn's work at ~1,500 messages and at ~5,000. Its own counter: the
 * suite's has counted the first 300 turns' texts already (the cache matrix), which made those turns
 * cheaper than the later ones for a reason that has nothing to do with the session's length.
 */
export async function runLongProcess(
  context: BenchContext,
): Promise<{ metrics: BenchMetric[]; notes: string[] }> {
  const counter = withTokenCache(createO200kCounter());
  const turns = longTurns();
  if (turns === 0) return { metrics: [], notes: [] };
  const started = performance.now();
  const run = await runProcessPath({
    counter,
    turns: loadLongTurns(turns),
    files: loadChineseFiles(counter),
    reads: heavyReadsOf,
    window: 16_000,
    measureRecords: true,
  });
  const { turnCpuMs, turnWallMs } = run;
  // The turns that write or read a channel's snapshot (every few hundred turns) wait longest.
  const slowest = turnWallMs
    .map((wall, at) => ({ wall, at }))
    .sort((a, b) => b.wall - a.wall)
    .slice(0, 3);
  const medianWall = median(turnWallMs);
  const [middle, last] = [median(turnCpuMs.slice(200, 300)), median(turnCpuMs.slice(-100))];
  const byHundred: string[] = [];
  for (let at = 0; at < turnCpuMs.length; at += 100)
    byHundred.push(median(turnCpuMs.slice(at, at + 100)).toFixed(0));
  // What each process turn writes, compresses and reads back in the call log (decision 084).
  const lastRecords = run.records.slice(-100);
  const recordBytes = median(lastRecords.map((record) => record.bytes));
  const recordDrops = median(lastRecords.map((record) => record.historyDropped));
  const over = run.calls.filter(
    (call) => call.sentTokens > (call.inputBudget ?? 0) || call.sentTokens !== call.loggedTokens,
  ).length;
  context.log(
    `long process session (tool-zh): ${turns} turns, ${run.calls.length} agent calls in ${((performance.now() - started) / 1000).toFixed(0)} s; turn CPU by hundred turns ${byHundred.join(', ')} ms; slowest turns (wall) ${slowest.map(({ wall, at }) => `#${at} ${wall.toFixed(0)} ms`).join(', ')} against a median of ${medianWall.toFixed(0)} ms; ${over} over or ≠ sent, ${run.unaccounted} unaccounted`,
  );
  return {
    metrics: [
      {
        name: `steps.process.tool-zh.turn-cpu.last-100-vs-turns-200-300`,
        value: last / Math.max(1e-9, middle),
        unit: 'x',
        target: `≤ 1.5× (CPU time of a process turn, median of the last 100 of ${turns} turns vs turns 200–300: ${middle.toFixed(0)} → ${last.toFixed(0)} ms)`,
        better: 'lower',
      },
      {
        // What a user of a long session waits for once in a few hundred turns: the turn that
        // writes a channel's snapshot (decision 084).
        name: 'steps.process.tool-zh.long.slowest-turn-wall',
        value: slowest[0]?.wall ?? 0,
        unit: 'ms',
        peer: { name: `median turn of ${turns}`, value: medianWall },
        better: 'lower',
      },
      {
        name: 'steps.process.tool-zh.long.call-record-bytes',
        value: recordBytes,
        unit: 'B',
        target: `a reader call's record as JSON, median of the last 100 of ${turns} turns' largest (${recordDrops} history drop entries)`,
        better: 'lower',
      },
      {
        name: 'steps.process.tool-zh.long.over-or-mismatched',
        value: over,
        unit: 'calls',
        target: `0 agent calls over the input budget or whose logged report ≠ tokens sent (${turns} process turns)`,
        better: 'lower',
      },
      {
        name: 'steps.process.tool-zh.long.unaccounted',
        value: run.unaccounted,
        unit: 'messages',
        target: '0 history messages an agent call neither sent, summarised, recalled nor left recallable',
        better: 'lower',
      },
    ],
    notes: [
      `Long process session (tool-zh, ${turns} turns): turn CPU medians by hundred turns ${byHundred.join(', ')} ms.`,
    ],
  };
}
