import type { ContextBlock } from './block.ts';
import type { BudgetPlan } from './budget.ts';
import type { SourceResult } from './collector.ts';
import { type CarriedRun, layerOf } from './compose.ts';
import type { ContextKey, LayerRegistry } from './layers.ts';
import type { Message } from './message.ts';
import { messageFingerprints } from './message-fingerprints.ts';
import type {
  BlockSummary,
  CompactionAction,
  CompileReport,
  CompileWarning,
  DroppedRun,
  DroppedSummary,
  LayerReport,
  SourceReport,
} from './report.ts';
import { blockPreview, preview, previewOf } from './report-previews.ts';
import { carriedRun, keptSummaries, withDetails } from './report-summaries.ts';
import type { DroppedBlock, DropReason, Selection } from './select.ts';
import type { ContextSource } from './source.ts';
import type { CachedTokenCounter, TokenCounter } from './tokens.ts';
import { type ToolDefinition, toolDefinitionText } from './tool-definitions.ts';

/** Input of {@link buildReport}: everything a compile decided. */
export interface BuildReportInput {
  counter: TokenCounter;
  plan: BudgetPlan;
  messages: readonly Message[];
  /** Each message's cost as sent (aligned with `messages`, request overhead excluded). */
  costs: readonly number[];
  total: number;
  selection: Selection;
  dropped: readonly DroppedBlock[];
  fixedContexts: Partial<Record<ContextKey, string>>;
  systemPrompt: string | undefined;
  query: Message | undefined;
  results: readonly SourceResult[];
  skippedSources: readonly ContextSource[];
  actions: readonly CompactionAction[];
  layers: LayerRegistry;
  share: boolean;
  /** The composition order used. */
  order: 'default' | 'cache-friendly';
  /** Tool definitions sent with the call and their tokens (in `total`). */
  tools?: readonly ToolDefinition[];
  toolTokens?: number;
  warnings?: readonly CompileWarning[];
  /**
   * Where the history's tagged copies sit in `messages` (start to end, exclusive), each a
   * `history` message without a merged `layers` list: their layer is summed by position.
   */
  historyRun?: { start: number; end: number };
  /** Ids of source blocks that went into never-compacted layers (always sent). */
  fixedBlockIds?: ReadonlySet<string>;
  /** `selection.kept[at..at + count)` are history-layer blocks: their layer is taken by position. */
  keptHistory?: { at: number; count: number };
  /**
   * The history sent as one tagged run: its copies are `messages[historyRun.start..end)`, its
   * blocks `selection.kept[keptHistory.at..)` (see `composeCall`); what the last run's report
   * made for the blocks it carried over is taken by position.
   */
  carried?: CarriedRun;
  /**
   * Where the history's drops sit in `dropped` (`[from, to)` pairs: each entry there is a
   * history drop) and the tokens of those blocks: they are listed without reading each block
   * for its layer, and a single run of them is summed from `tokens`.
   */
  historyDrops?: { ranges: readonly number[]; tokens: number };
}

/** Assembles the {@link CompileReport}; layer tokens are counted from the emitted messages. */
export function buildReport(input: BuildReportInput): CompileReport {
  const { counter, plan } = input;
  const perRequest = input.messages.length > 0 ? counter.overhead.perRequest : 0;
  const tokensByLayer = new Map<string, number>();
  // Consecutive messages of one layer (a long history) are summed before touching the map.
  let runLayer: string | undefined;
  let runTokens = 0;
  const historyRun = input.historyRun;
  for (let index = 0; index < input.messages.length; index++) {
    if (historyRun !== undefined && index === historyRun.start) {
      // The history's copies, summed from the costs alone (each copy is not read).
      let tokens = 0;
      for (; index < historyRun.end; index++) tokens += input.costs[index] ?? 0;
      index--;
      if (runLayer === 'history') {
        runTokens += tokens;
        continue;
      }
      if (runLayer !== undefined) tokensByLayer.set(runLayer, (tokensByLayer.get(runLayer) ?? 0) + runTokens);
      runLayer = 'history';
      runTokens = tokens;
      continue;
    }
    const message = input.messages[index] as Message;
    const cost = input.costs[index] ?? 0;
    const merged = message.metadata?.layers;
    if (Array.isArray(merged) && merged.length > 1) {
      // A merged system message: attribute each layer its own text, the frame to the first.
      let rest = cost;
      for (const name of merged.slice(1) as string[]) {
        const text =
          name === 'system' ? (input.systemPrompt ?? '') : (input.fixedContexts[name as ContextKey] ?? '');
        const share = Math.min(rest, counter.countText(text));
        tokensByLayer.set(name, (tokensByLayer.get(name) ?? 0) + share);
        rest -= share;
      }
      const first = merged[0] as string;
      tokensByLayer.set(first, (tokensByLayer.get(first) ?? 0) + rest);
      continue;
    }
    const layer = layerOf(message) ?? 'history';
    if (layer === runLayer) {
      runTokens += cost;
      continue;
    }
    if (runLayer !== undefined) tokensByLayer.set(runLayer, (tokensByLayer.get(runLayer) ?? 0) + runTokens);
    runLayer = layer;
    runTokens = cost;
  }
  if (runLayer !== undefined) tokensByLayer.set(runLayer, (tokensByLayer.get(runLayer) ?? 0) + runTokens);

  // One pass over the blocks, grouped by layer: each run of one layer's blocks is taken as one
  // slice of the summaries, and the ids a source's report looks up are noted in the same pass.
  // A source's blocks fill its layer only: the ids of kept blocks of other layers (a long
  // history, unless a source fills the history layer) are never looked up.
  const keptByLayer = new Map<string, BlockSummary[]>();
  const keptBlocks = input.selection.kept;
  const carried = carriedRun(input);
  const summaries = keptSummaries(
    keptBlocks,
    carried === undefined ? undefined : input.keptHistory?.at,
    carried,
  );
  const keptIds = new Set<string>(input.results.length === 0 ? [] : (input.fixedBlockIds ?? []));
  const filled = new Set(input.results.map((result) => result.source.layer));
  const historyFilled = filled.has('history');
  let keptLayer: string | undefined;
  let runStart = 0;
  let noteIds = false;
  const flush = (end: number) => {
    if (keptLayer === undefined || end <= runStart) return;
    const list = keptByLayer.get(keptLayer);
    if (list === undefined) keptByLayer.set(keptLayer, summaries.slice(runStart, end));
    else for (let at = runStart; at < end; at++) list.push(summaries[at] as BlockSummary);
  };
  // The kept history's run is one run of the history layer, each block not read (unless a
  // source fills the history layer and its ids are noted).
  const keptHistory = input.results.length > 0 && historyFilled ? undefined : input.keptHistory;
  for (let index = 0; index < keptBlocks.length; index++) {
    if (keptHistory !== undefined && index === keptHistory.at && keptHistory.count > 0) {
      if (keptLayer !== 'history') {
        flush(index);
        keptLayer = 'history';
        runStart = index;
        noteIds = false;
      }
      index += keptHistory.count - 1;
      continue;
    }
    const block = keptBlocks[index] as ContextBlock;
    if (block.layer !== keptLayer) {
      flush(index);
      keptLayer = block.layer;
      runStart = index;
      noteIds =
        input.results.length > 0 && (block.layer === 'history' ? historyFilled : filled.has(block.layer));
    }
    if (noteIds) keptIds.add(block.id);
  }
  flush(keptBlocks.length);
  const droppedByLayer = new Map<string, DroppedSummary[]>();
  // One walk over the drops (indexed: no iterator object per entry before the loop is
  // optimised): other layers' drops are listed as they come, the history's set aside in order
  // (each layer's list is its own, so listing the history's afterwards changes no order).
  const allDropped = input.dropped;
  const droppedHistory: DroppedBlock[] = [];
  const ranges = input.historyDrops?.ranges ?? [];
  let range = 0;
  // Whether every history drop is in the ranges (their tokens are then known).
  let onlyRanges = input.historyDrops !== undefined;
  for (let index = 0; index < allDropped.length; index++) {
    if (range < ranges.length && index === ranges[range]) {
      const end = ranges[range + 1] as number;
      for (; index < end; index++) droppedHistory.push(allDropped[index] as DroppedBlock);
      index--;
      range += 2;
      continue;
    }
    const entry = allDropped[index] as DroppedBlock;
    if (entry.block.layer === 'history') {
      droppedHistory.push(entry);
      onlyRanges = false;
      continue;
    }
    listOf(droppedByLayer, entry.block.layer).push(withDetails(summarizeDropped(entry), entry.block));
  }
  if (droppedHistory.length > 0) {
    // In the order the stages dropped them (each stage newest first): the first one by one,
    // the rest as runs when there are more.
    const listed = listOf(droppedByLayer, 'history');
    const single =
      droppedHistory.length <= LISTED_HISTORY_DROPS ? droppedHistory.length : LISTED_LONG_HISTORY_DROPS;
    let rest = onlyRanges ? (input.historyDrops?.tokens ?? 0) : Number.NaN;
    // The blocks listed last time at the same places keep their previews (a recompile drops
    // the same oldest messages): no lookup by message for them.
    const known = lastListed;
    const blocks = new Array<ContextBlock>(single);
    const previews = new Array<string>(single);
    for (let index = 0; index < single; index++) {
      const entry = droppedHistory[index] as DroppedBlock;
      const block = entry.block;
      const text =
        known !== undefined && Object.is(known.blocks[index], block)
          ? (known.previews[index] as string)
          : blockPreview(block);
      blocks[index] = block;
      previews[index] = text;
      listed.push(withDetails(summarizeDropped(entry, text), block));
      rest -= block.tokens;
    }
    lastListed = { blocks, previews };
    if (droppedHistory.length > single) listed.push(...collapseRuns(droppedHistory, single, rest));
  }

  const layers: LayerReport[] = [];
  for (const layer of input.layers.list()) {
    const kept = keptByLayer.get(layer.name) ?? [];
    const dropped = droppedByLayer.get(layer.name) ?? [];
    const fixed = fixedSummary(layer.name, input);
    if (fixed !== undefined) kept.unshift(fixed);
    const tokens = tokensByLayer.get(layer.name) ?? 0;
    if (kept.length === 0 && dropped.length === 0 && tokens === 0) continue;
    const grant = input.selection.layers.find((entry) => entry.layer === layer.name);
    const report: LayerReport = { layer: layer.name, kind: layer.kind, tokens, kept, dropped };
    if (grant !== undefined) report.grantTokens = grant.grantTokens;
    layers.push(report);
  }

  const sources: SourceReport[] = input.results.map((result) => {
    const kept = result.blocks.filter((block) => keptIds.has(block.id));
    const report: SourceReport = {
      name: result.source.name,
      layer: result.source.layer,
      priority: result.source.priority,
      allocatedTokens: result.allocatedTokens,
      returnedBlocks: result.blocks.length,
      returnedTokens: sum(result.blocks),
      keptBlocks: kept.length,
      keptTokens: sum(kept),
    };
    if (result.error !== undefined) report.error = result.error;
    return report;
  });
  for (const source of input.skippedSources) {
    sources.push({
      name: source.name,
      layer: source.layer,
      priority: source.priority,
      allocatedTokens: 0,
      returnedBlocks: 0,
      returnedTokens: 0,
      keptBlocks: 0,
      keptTokens: 0,
      skipped: 'share-disabled',
    });
  }

  const report: CompileReport = {
    counter: counter.name,
    exact: counter.exact,
    window: plan.window,
    outputReserve: plan.outputReserve,
    inputBudget: plan.inputBudget,
    totalTokens: input.total,
    overheadTokens: perRequest,
    fits: input.total <= plan.inputBudget,
    overflowTokens: Math.max(0, input.total - plan.inputBudget),
    shareContext: input.share,
    order: input.order,
    layers,
    sources,
    compaction: [...input.actions],
    messages: messageFingerprints(
      input.messages,
      input.costs,
      carried === undefined || input.historyRun === undefined
        ? undefined
        : { start: input.historyRun.start, carried },
    ),
  };
  if (input.tools !== undefined && input.tools.length > 0) {
    report.tools = {
      count: input.tools.length,
      tokens: input.toolTokens ?? 0,
      names: input.tools.map((tool) => tool.name),
      definitions: input.tools.map((tool) => ({
        name: tool.name,
        tokens: counter.countText(toolDefinitionText(tool)),
      })),
    };
  }
  if (input.warnings !== undefined && input.warnings.length > 0) report.warnings = [...input.warnings];
  if (plan.phase !== undefined) report.phase = plan.phase;
  if ('stats' in counter && typeof counter.stats === 'function')
    report.cache = (counter as CachedTokenCounter).stats();
  return report;
}

function fixedSummary(layer: string, input: BuildReportInput): BlockSummary | undefined {
  let text: string | undefined;
  if (layer === 'system') text = input.systemPrompt;
  else if (layer === 'query') text = input.query === undefined ? undefined : previewOf(input.query);
  else text = input.fixedContexts[layer as ContextKey];
  if (text === undefined || text.length === 0) return undefined;
  const id = layer === 'query' && input.query !== undefined ? input.query.id : layer;
  return { id, source: layer, tokens: input.counter.countText(text), priority: 1, preview: preview(text) };
}

/**
 * Dropped history messages a report lists one by one: all of them while there are at most this
 * many. When more are dropped (a long session drops thousands), the first
 * {@link LISTED_LONG_HISTORY_DROPS} are listed one by one, in the order the stages dropped them
 * (each stage newest first), then the rest as runs — consecutive drops with the same reason,
 * one entry each with the count, the tokens and the first and last id — so a report, and each
 * call-log record, stays bounded while every cut is still in it.
 */
export const LISTED_HISTORY_DROPS = 100;

/**
 * Dropped history messages a long session's report lists one by one (past
 * {@link LISTED_HISTORY_DROPS}): each is ~300 bytes of every call-log record, which a process
 * turn writes, compresses and reads back (decision 082).
 */
export const LISTED_LONG_HISTORY_DROPS = 20;

/**
 * Consecutive drops (in the report's order, from `from` on) with the same reason as one entry
 * each; consecutive drops of a long session's covered history (summarised, recallable or
 * recalled) as one entry whatever their mix, with the reason most of them have and the others
 * named in `run.others` (decision 085). `restTokens`, when a number, is the tokens of every drop
 * from `from` on: a single run takes it instead of reading each block.
 */
function collapseRuns(
  entries: readonly DroppedBlock[],
  from: number,
  restTokens = Number.NaN,
): DroppedSummary[] {
  const runs: DroppedSummary[] = [];
  let start = from;
  while (start < entries.length) {
    const first = entries[start] as DroppedBlock;
    let end = start + 1;
    if (covered(first.reason)) {
      while (end < entries.length && covered((entries[end] as DroppedBlock).reason)) end++;
    } else {
      // Drops of one cause share their reason object (selectBlocks): equal without serialising.
      // An equal reason object met once (the unreachable history's, after the selection's) is
      // remembered, so a long run of it is compared by pointer too.
      const key = JSON.stringify(first.reason);
      let equal: DropReason = first.reason;
      const sameReason = (reason: DropReason) => {
        if (reason === first.reason || reason === equal) return true;
        if (JSON.stringify(reason) !== key) return false;
        equal = reason;
        return true;
      };
      while (end < entries.length && sameReason((entries[end] as DroppedBlock).reason)) end++;
    }
    const count = end - start;
    if (count === 1) {
      runs.push(summarizeDropped(first));
      start = end;
      continue;
    }
    let tokens = 0;
    if (start === from && end === entries.length && !Number.isNaN(restTokens)) tokens = restTokens;
    else
      for (let index = start; index < end; index++) tokens += (entries[index] as DroppedBlock).block.tokens;
    const last = entries[end - 1] as DroppedBlock;
    const run: DroppedRun = { count, firstId: first.block.id, lastId: last.block.id };
    let reason = first.reason;
    if (covered(first.reason)) {
      const mix = coveredMix(entries, start, end);
      reason = mix.reason;
      if (mix.others.length > 0) run.others = mix.others;
    }
    runs.push({
      id: `${first.block.id}…${last.block.id}`,
      source: first.block.source,
      tokens,
      priority: first.block.priority,
      preview: '',
      reason,
      run,
    });
    start = end;
  }
  return runs;
}

/** A drop of a long session's covered history: summarised, recallable or recalled (decision 040). */
function covered(reason: DropReason): boolean {
  return reason.type === 'summarized' || reason.type === 'recallable' || reason.type === 'recalled';
}

/**
 * The reason most of `entries[start..end)` have, and the others by reason (equal by value, in the
 * order first met) with their ids and tokens. A long session's report reads its whole covered
 * history at every call: consecutive drops mostly share one reason object, so each entry costs a
 * pointer comparison, a reason object is keyed once, and only the others' ids are collected.
 */
function coveredMix(
  entries: readonly DroppedBlock[],
  start: number,
  end: number,
): { reason: DropReason; others: NonNullable<DroppedRun['others']> } {
  type Group = NonNullable<DroppedRun['others']>[number] & { count: number };
  const byKey = new Map<string, Group>();
  const byObject = new Map<DropReason, Group>();
  let lastReason: DropReason | undefined;
  let lastGroup: Group | undefined;
  const groupOf = (reason: DropReason): Group => {
    if (reason === lastReason) return lastGroup as Group;
    let group = byObject.get(reason);
    if (group === undefined) {
      const key = JSON.stringify(reason);
      group = byKey.get(key) ?? { reason, ids: [], tokens: 0, count: 0 };
      byKey.set(key, group);
      byObject.set(reason, group);
    }
    lastReason = reason;
    lastGroup = group;
    return group;
  };
  for (let index = start; index < end; index++) groupOf((entries[index] as DroppedBlock).reason).count++;
  let most: Group | undefined;
  for (const group of byKey.values()) if (most === undefined || group.count > most.count) most = group;
  if (byKey.size > 1)
    for (let index = start; index < end; index++) {
      const { block, reason } = entries[index] as DroppedBlock;
      const group = groupOf(reason);
      if (group === most) continue;
      group.ids.push(block.id);
      group.tokens += block.tokens;
    }
  const others: NonNullable<DroppedRun['others']> = [];
  for (const group of byKey.values())
    if (group !== most) others.push({ reason: group.reason, ids: group.ids, tokens: group.tokens });
  return { reason: (most as Group).reason, others };
}

function summarizeDropped(entry: DroppedBlock, preview = blockPreview(entry.block)): DroppedSummary {
  // One literal (not `summarize` plus a property, nor a spread copy): a long session drops
  // thousands of messages, and each entry then costs one allocation of one shape.
  const { block } = entry;
  return {
    id: block.id,
    source: block.source,
    tokens: block.tokens,
    priority: block.priority,
    preview,
    reason: entry.reason,
  };
}

/**
 * The history blocks the last report listed one by one, and their previews (aligned). A block
 * is never changed once made (decision 067), so its preview is what it was.
 */
let lastListed: { blocks: readonly ContextBlock[]; previews: readonly string[] } | undefined;

/** The list for `layer`, created on first use; consecutive blocks mostly share a layer. */
function listOf<T>(byLayer: Map<string, T[]>, layer: string): T[] {
  let list = byLayer.get(layer);
  if (list === undefined) {
    list = [];
    byLayer.set(layer, list);
  }
  return list;
}

function sum(blocks: readonly ContextBlock[]): number {
  return blocks.reduce((total, block) => total + block.tokens, 0);
}
