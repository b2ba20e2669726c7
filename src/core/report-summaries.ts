import type { ContextBlock } from './block.ts';
import type { BuildReportInput } from './build-report.ts';
import { type CarriedRun, newCopyRecord } from './compose.ts';
import type { HistoryRecord } from './history-records.ts';
import type { BlockSummary } from './report.ts';
import { blockPreview } from './report-previews.ts';
import { createRunMemo } from './run-memo.ts';

/** A block's summary in a report: id, source, tokens, priority and `preview`. */
function summarize(block: ContextBlock, preview: string): BlockSummary {
  return {
    id: block.id,
    source: block.source,
    tokens: block.tokens,
    priority: block.priority,
    preview,
  };
}

/** Adds the optional fields a block carries: pinned, provenance, tokens before trimming. */
export function withDetails<T extends BlockSummary>(summary: T, block: ContextBlock): T {
  if (block.pinned === true) summary.pinned = true;
  if (block.provenance !== undefined) summary.provenance = block.provenance;
  const from = block.metadata.trimmedFromTokens;
  if (typeof from === 'number') summary.trimmedFromTokens = from;
  return summary;
}

/** Summaries of runs of kept blocks an earlier report listed (every step of a tool loop keeps the same history blocks). */
const keptRuns = createRunMemo<ContextBlock, BlockSummary>();

/**
 * `input.carried` when its run is where the report is told the history sits (its copies at
 * `historyRun.start`, its blocks at `keptHistory.at`, checked by pointer at both ends).
 */
export function carriedRun(input: BuildReportInput): CarriedRun | undefined {
  const { carried, historyRun, keptHistory } = input;
  if (carried === undefined || historyRun === undefined || keptHistory === undefined) return undefined;
  const { blocks, copies } = carried.run;
  const count = blocks.length;
  if (count === 0 || keptHistory.count !== count || historyRun.end - historyRun.start !== count)
    return undefined;
  const kept = input.selection.kept;
  if (kept[keptHistory.at] !== blocks[0] || kept[keptHistory.at + count - 1] !== blocks[count - 1])
    return undefined;
  const messages = input.messages;
  if (messages[historyRun.start] !== copies[0] || messages[historyRun.end - 1] !== copies[count - 1])
    return undefined;
  return carried;
}

/** The summaries a report made for a tagged run's blocks (aligned with them). */
const summariesByRun = new WeakMap<CarriedRun['run'], BlockSummary[]>();

function summaryOf(block: ContextBlock, record?: HistoryRecord): BlockSummary {
  return Object.freeze(withDetails(summarize(block, blockPreview(block, record)), block));
}

/**
 * The summary of each kept block. A block is never changed once made, so its summary is
 * made once and shared (frozen) by every report that lists it: a step reusing the history's
 * blocks copies their summaries run by run. With `carried` (the kept history's blocks from
 * `at` on, as one tagged run), the blocks it carried over take the summaries the last run's
 * report made for them, by position; the other kept blocks (a source's, made anew by most
 * sources on every compile) are summarised.
 */
export function keptSummaries(
  blocks: readonly ContextBlock[],
  at: number | undefined,
  carried: CarriedRun | undefined,
): BlockSummary[] {
  if (carried === undefined || at === undefined) {
    return keptRuns.map({
      keys: blocks,
      compute: (block) => summaryOf(block),
      valid: () => true,
      startsRun: (index) => blocks[index]?.layer !== blocks[index - 1]?.layer,
      // The summaries are only read afterwards (each report copies them into its own lists).
      unshared: { values: true },
    });
  }
  const { run, previous, offset, same } = carried;
  const count = run.blocks.length;
  const known = previous === undefined ? undefined : summariesByRun.get(previous);
  const reused = known === undefined ? 0 : same;
  const summaries = new Array<BlockSummary>(blocks.length);
  const aligned = new Array<BlockSummary>(count);
  for (let index = 0; index < blocks.length; index++) {
    if (index === at) {
      for (let within = 0; within < count; within++) {
        const summary =
          within < reused
            ? ((known as BlockSummary[])[offset + within] as BlockSummary)
            : summaryOf(run.blocks[within] as ContextBlock, newCopyRecord(run, within));
        aligned[within] = summary;
        summaries[index + within] = summary;
      }
      index += count - 1;
      continue;
    }
    summaries[index] = summaryOf(blocks[index] as ContextBlock);
  }
  summariesByRun.set(run, aligned);
  return summaries;
}
