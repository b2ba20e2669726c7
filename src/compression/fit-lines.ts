import type { TokenCounter } from '../core/index.ts';

/** A group of lines kept or dropped together, with a shorter fallback when it does not fit. */
export interface LineGroup {
  /** Stable key reported back (e.g. a requirement or artifact id). */
  key: string;
  lines: string[];
  /** Tried when `lines` do not fit; omit to drop the group instead. */
  fallback?: string[];
}

/** Result of {@link fitLines}. */
export interface FittedLines {
  text: string;
  tokens: number;
  keptKeys: string[];
  droppedKeys: string[];
}

/** Options of {@link fitLines}. */
export interface FitLinesOptions {
  header: string[];
  /** In priority order. */
  groups: readonly LineGroup[];
  maxTokens: number;
  counter: TokenCounter;
  /**
   * A last line naming what was left out; kept groups give way (from the end) so it fits.
   * Keep it bounded (a count and a few keys): every token it takes is one a group cannot.
   */
  footer?: (droppedKeys: string[]) => string;
  /**
   * When true, as many groups as possible are kept first, each in its smallest form (the
   * fallback), and kept groups are then upgraded to their full lines in order while those
   * fit: detail gives way before any group does. Default false: each group in full, else its
   * fallback, in order.
   */
  fallbackFirst?: boolean;
}

/**
 * Packs groups of lines, in order, under `maxTokens`: each group in full, else its fallback,
 * else it and every later group are dropped (order is priority, so nothing lower jumps
 * ahead); with `fallbackFirst`, every kept group first takes its fallback and is upgraded
 * afterwards. When something is dropped, the footer line naming it is kept, giving up kept
 * groups from the end if needed. The text is finally counted as a whole and trimmed from the end
 * until it fits, so the bound holds even when a tokenizer merges across line breaks.
 */
export function fitLines(options: FitLinesOptions): FittedLines {
  const { counter, maxTokens } = options;
  const newline = counter.countText('\n');
  const cost = (lines: readonly string[]) =>
    lines.reduce((sum, line) => sum + counter.countText(line) + newline, 0);
  const headerCost = cost(options.header);
  if (headerCost > maxTokens) {
    return { text: '', tokens: 0, keptKeys: [], droppedKeys: options.groups.map((group) => group.key) };
  }
  const chosen: { key: string; lines: string[]; cost: number; full?: string[] }[] = [];
  let used = headerCost;
  let cut = options.groups.length;
  for (const [index, group] of options.groups.entries()) {
    const candidates =
      group.fallback === undefined
        ? [group.lines]
        : options.fallbackFirst
          ? [group.fallback]
          : [group.lines, group.fallback];
    const fitting = candidates
      .map((lines) => ({ lines, cost: cost(lines) }))
      .find((c) => used + c.cost <= maxTokens);
    if (fitting === undefined) {
      cut = index;
      break;
    }
    chosen.push({
      key: group.key,
      ...fitting,
      ...(options.fallbackFirst && group.fallback !== undefined ? { full: group.lines } : {}),
    });
    used += fitting.cost;
  }
  let dropped = options.groups.slice(cut).map((group) => group.key);
  let footer: string | undefined;
  while (dropped.length > 0 && options.footer !== undefined) {
    const line = options.footer(dropped);
    if (used + cost([line]) <= maxTokens) {
      footer = line;
      break;
    }
    const last = chosen.pop();
    if (last === undefined) break;
    used -= last.cost;
    dropped = [last.key, ...dropped];
  }
  if (options.fallbackFirst) {
    if (footer !== undefined) used += cost([footer]);
    for (const group of chosen) {
      if (group.full === undefined) continue;
      const fullCost = cost(group.full);
      if (used - group.cost + fullCost > maxTokens) continue;
      used += fullCost - group.cost;
      group.lines = group.full;
      group.cost = fullCost;
    }
  }
  const lines = [...options.header, ...chosen.flatMap((group) => group.lines)];
  if (footer !== undefined) lines.push(footer);
  let text = lines.join('\n');
  let tokens = counter.countText(text);
  while (tokens > maxTokens && lines.length > 0) {
    lines.pop();
    text = lines.join('\n');
    tokens = counter.countText(text);
  }
  return { text, tokens, keptKeys: chosen.map((group) => group.key), droppedKeys: dropped };
}
