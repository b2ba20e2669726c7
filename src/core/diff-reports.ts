import type { BlockSummary, CompileReport, DroppedSummary } from './report.ts';
import type { DropReason } from './select.ts';

/** A block in a {@link ReportDiff}: where it is and, when it left, why. */
export interface DiffBlock {
  id: string;
  layer: string;
  source: string;
  tokens: number;
  preview: string;
  /** Why it is not sent now (`removed`, `summarised`); absent when the source no longer returned it. */
  reason?: DropReason;
  /** Tokens before this call trimmed it (`trimmed`). */
  fromTokens?: number;
}

/** What changed between two calls' reports (see {@link diffReports}). */
export interface ReportDiff {
  /** Sent now, not sent before. */
  added: DiffBlock[];
  /** Sent before, not now — dropped (with the reason) or no longer collected. */
  removed: DiffBlock[];
  /** Sent in both, but cut shorter now. */
  trimmed: DiffBlock[];
  /** Sent before, now summarised into `compression__context`. */
  summarised: DiffBlock[];
  /** Tool outputs this call replaced by artifact placeholders that the previous call did not. */
  placeholders: { blockId: string; handle: string; fromTokens: number; toTokens: number; reason: string }[];
  /**
   * This call's input split by what a provider prompt cache could serve: the longest prefix
   * (tool schemas, then messages) identical to the previous call's, counted only from
   * `minCacheTokens` up (Anthropic caches nothing shorter); the rest is uncached.
   */
  cache: { cachedTokens: number; uncachedTokens: number; prefixMessages: number };
  totals: { previousTokens: number; currentTokens: number; deltaTokens: number };
}

/**
 * Compares two compile reports of one session — usually consecutive calls — block by block:
 * what was added, removed (and why), trimmed or summarised, which tool outputs became
 * placeholders, and how much of the new call's input is an identical prefix of the previous
 * one (cached) versus new (uncached). Pure; works on stored reports.
 * @example
 * const diff = diffReports(log[4].report, log[5].report);
 */
export function diffReports(
  previous: CompileReport,
  current: CompileReport,
  options: { minCacheTokens?: number } = {},
): ReportDiff {
  const before = keptBlocks(previous);
  const now = keptBlocks(current);
  const droppedNow = new Map<string, { layer: string; block: DroppedSummary }>();
  for (const layer of current.layers)
    for (const block of layer.dropped)
      droppedNow.set(`${layer.layer}:${block.id}`, { layer: layer.layer, block });

  const added: DiffBlock[] = [];
  const trimmed: DiffBlock[] = [];
  for (const [id, entry] of now) {
    const old = before.get(id);
    if (old === undefined) {
      added.push(toDiff(entry.layer, entry.block));
      continue;
    }
    const from = entry.block.trimmedFromTokens;
    if (
      from !== undefined &&
      (old.block.trimmedFromTokens === undefined || entry.block.tokens < old.block.tokens)
    ) {
      trimmed.push({ ...toDiff(entry.layer, entry.block), fromTokens: from });
    }
  }
  const removed: DiffBlock[] = [];
  const summarised: DiffBlock[] = [];
  for (const [id, entry] of before) {
    if (now.has(id)) continue;
    const dropped = droppedNow.get(id);
    const block = toDiff(entry.layer, entry.block);
    if (dropped === undefined) removed.push(block);
    else if (dropped.block.reason.type === 'summarized')
      summarised.push({ ...block, reason: dropped.block.reason });
    else removed.push({ ...block, reason: dropped.block.reason });
  }

  const oldHandles = new Set(
    previous.compaction.flatMap((action) =>
      action.type === 'placeholder' ? [`${action.blockId} ${action.handle}`] : [],
    ),
  );
  const placeholders = current.compaction.flatMap((action) =>
    action.type === 'placeholder' && !oldHandles.has(`${action.blockId} ${action.handle}`)
      ? [
          {
            blockId: action.blockId,
            handle: action.handle,
            fromTokens: action.fromTokens,
            toTokens: action.toTokens,
            reason: action.reason,
          },
        ]
      : [],
  );

  return {
    added,
    removed,
    trimmed,
    summarised,
    placeholders,
    cache: cacheSplit(previous, current, options.minCacheTokens ?? 1024),
    totals: {
      previousTokens: previous.totalTokens,
      currentTokens: current.totalTokens,
      deltaTokens: current.totalTokens - previous.totalTokens,
    },
  };
}

function keptBlocks(report: CompileReport): Map<string, { layer: string; block: BlockSummary }> {
  const blocks = new Map<string, { layer: string; block: BlockSummary }>();
  for (const layer of report.layers)
    for (const block of layer.kept) blocks.set(`${layer.layer}:${block.id}`, { layer: layer.layer, block });
  return blocks;
}

function toDiff(layer: string, block: BlockSummary): DiffBlock {
  return { id: block.id, layer, source: block.source, tokens: block.tokens, preview: block.preview };
}

function cacheSplit(
  previous: CompileReport,
  current: CompileReport,
  minCacheTokens: number,
): ReportDiff['cache'] {
  const total = current.totalTokens;
  const sameTools =
    (previous.tools?.tokens ?? 0) === (current.tools?.tokens ?? 0) &&
    (previous.tools?.names ?? []).join('\u0000') === (current.tools?.names ?? []).join('\u0000');
  let cached = 0;
  let prefixMessages = 0;
  if (sameTools) {
    cached = (current.tools?.tokens ?? 0) + current.overheadTokens;
    const before = previous.messages ?? [];
    for (const [index, message] of (current.messages ?? []).entries()) {
      if (before[index]?.hash !== message.hash) break;
      cached += message.tokens;
      prefixMessages++;
    }
    if (prefixMessages === 0) cached = 0;
  }
  if (cached < minCacheTokens) cached = 0;
  cached = Math.min(cached, total);
  return { cachedTokens: cached, uncachedTokens: total - cached, prefixMessages };
}
