import type { ContextBlock } from './block.ts';
import { createBlock } from './block.ts';
import { HISTORY_SOURCE, type HistoryBlockMetadata } from './history.ts';
import { historyBlockId, measureMessage } from './measure-messages.ts';
import { type Message, toolOutputText } from './message.ts';
import type { CompactionAction } from './report.ts';
import { rollSummary, type SummaryPeriod } from './rolling-summary.ts';
import type { DroppedBlock, DropReason, Selection } from './select.ts';
import { noteCopiedBlocks } from './select-history-run.ts';
import type { Summarizer } from './summarizer.ts';
import { countMessage, type TokenCounter } from './tokens.ts';
import { trimToTokens } from './trim.ts';

/** Why history covered by a summary (stored or new) is not sent: the summary stands for it. */
export const SUMMARIZED_REASON: DropReason = Object.freeze({
  type: 'summarized',
  into: 'compression__context',
});

/** The id of the block holding the history summary or omission notice. */
export const COMPRESSION_BLOCK_ID = 'compression__context:summary';

/**
 * Trims, for each layer that ran out of room, the best block that did not fit into the
 * room left — at a heading, paragraph or sentence boundary, marked `[… trimmed]`. Only
 * standalone blocks are trimmed (never a tool call/result group), history messages only
 * when their content is plain text. Returns the selection with trimmed blocks kept.
 */
export function trimDropped(
  selection: Selection,
  counter: TokenCounter,
  options: {
    minTrimTokens: number;
    separatorTokens: number;
    compactable: (layer: string) => boolean;
    /** False when a summary or notice already stands for the dropped history. */
    trimHistory: boolean;
    /** All candidates in collection order (kept blocks keep this order). */
    candidates: readonly ContextBlock[];
  },
): { selection: Selection; actions: CompactionAction[] } {
  const actions: CompactionAction[] = [];
  const replaced = new Map<string, ContextBlock>();
  for (const grant of selection.layers) {
    const room = grant.grantTokens - grant.usedTokens - options.separatorTokens;
    if (room < options.minTrimTokens || !options.compactable(grant.layer)) continue;
    if (grant.layer === 'history' && !options.trimHistory) continue;
    // A layer that kept all it asked for dropped nothing over budget (the stages that drop
    // more after the selection drop history only): no walk over a long history's drops,
    // reading each drop's block, to find none.
    if (grant.layer !== 'history' && grant.usedTokens >= grant.demandTokens) continue;
    const first = selection.dropped.find(
      (entry) => entry.block.layer === grant.layer && entry.reason.type === 'over-budget',
    );
    if (first === undefined || first.block.group !== undefined || first.block.metadata.trimmable === false)
      continue;
    const trimmed = trimBlock(first.block, room, counter);
    if (trimmed === undefined) continue;
    replaced.set(first.block.id, trimmed);
    grant.usedTokens += trimmed.tokens + options.separatorTokens;
    actions.push({
      type: 'trimmed',
      blockId: first.block.id,
      layer: grant.layer,
      fromTokens: first.block.tokens,
      toTokens: trimmed.tokens,
      boundary: String(trimmed.metadata.trimBoundary),
    });
  }
  if (replaced.size === 0) return { selection, actions };
  const dropped = selection.dropped.filter((entry) => !replaced.has(entry.block.id));
  const keptIds = new Set(selection.kept.map((block) => block.id));
  const kept: ContextBlock[] = [];
  for (const block of options.candidates) {
    const trimmed = replaced.get(block.id);
    if (trimmed !== undefined) kept.push(trimmed);
    else if (keptIds.has(block.id)) kept.push(block);
  }
  return { selection: { ...selection, kept, dropped }, actions };
}

function trimBlock(block: ContextBlock, room: number, counter: TokenCounter): ContextBlock | undefined {
  if (block.layer === 'history') {
    const metadata = block.metadata as HistoryBlockMetadata;
    const message = metadata.message;
    if (typeof message.content !== 'string') return undefined;
    const frame = countMessage(counter, { ...message, content: '' });
    const result = trimToTokens(message.content, room - frame, counter, { allowCharacterCut: false });
    if (result === undefined) return undefined;
    const trimmedMessage: Message = {
      ...message,
      content: result.text,
      metadata: { ...message.metadata, trimmed: true },
    };
    return {
      ...block,
      content: result.text,
      tokens: countMessage(counter, trimmedMessage),
      metadata: {
        ...metadata,
        message: trimmedMessage,
        trimmedFromTokens: block.tokens,
        trimBoundary: result.boundary,
      },
    };
  }
  const result = trimToTokens(block.content, room, counter);
  if (result === undefined) return undefined;
  return {
    ...block,
    content: result.text,
    tokens: result.tokens,
    metadata: { ...block.metadata, trimmedFromTokens: block.tokens, trimBoundary: result.boundary },
  };
}

/**
 * Tokens of the history messages dropped for lack of room (those {@link droppedHistory}
 * lists), each as `measureMessage` counts it: a block the history was made into already
 * carries that count; a source's history block is measured.
 */
export function droppedHistoryTokens(dropped: readonly DroppedBlock[], counter: TokenCounter): number {
  let tokens = 0;
  for (let index = 0; index < dropped.length; index++) {
    const entry = dropped[index] as DroppedBlock;
    const block = entry.block;
    if (block.layer !== 'history' || entry.reason.type !== 'over-budget') continue;
    tokens +=
      block.source === HISTORY_SOURCE
        ? block.tokens
        : measureMessage((block.metadata as HistoryBlockMetadata).message, counter).tokens;
  }
  return tokens;
}

/** How many history messages were dropped for lack of room (the length {@link droppedHistory} returns). */
export function droppedHistoryCount(dropped: readonly DroppedBlock[]): number {
  let count = 0;
  for (let index = 0; index < dropped.length; index++) {
    const entry = dropped[index] as DroppedBlock;
    if (entry.block.layer === 'history' && entry.reason.type === 'over-budget') count++;
  }
  return count;
}

function sortedByIndex(lost: HistoryBlockMetadata[]): Message[] {
  return lost.sort((a, b) => a.index - b.index).map((metadata) => metadata.message);
}

/**
 * History messages dropped for lack of room, oldest first. With `erring`, the messages among
 * them that may carry a failed tool result are pushed onto it, in the same order: all but
 * those whose block the history made with `error: false` (its measure looked at the message's
 * parts in this compile), so {@link errorLines} of them reads no other message.
 */
export function droppedHistory(dropped: readonly DroppedBlock[], erring?: Message[]): Message[] {
  const lost: HistoryBlockMetadata[] = [];
  for (let index = 0; index < dropped.length; index++) {
    const entry = dropped[index] as DroppedBlock;
    const block = entry.block;
    if (block.layer !== 'history' || entry.reason.type !== 'over-budget') continue;
    const metadata = block.metadata as HistoryBlockMetadata;
    // A source's own history blocks are read whatever they say.
    if (erring !== undefined && (block.source !== HISTORY_SOURCE || metadata.error !== false))
      mayErr.add(metadata.message);
    lost.push(metadata);
  }
  const messages = orderedMessages(lost);
  if (erring !== undefined && mayErr.size > 0) {
    for (let index = 0; index < messages.length; index++) {
      const message = messages[index] as Message;
      if (mayErr.has(message)) erring.push(message);
    }
  }
  mayErr.clear();
  return messages;
}

/** The dropped history messages that may carry a failed tool result (reused, cleared by each call). */
const mayErr = new Set<Message>();

/** The messages of `lost`, ordered by their `index` (see {@link droppedHistory}). */
function orderedMessages(lost: HistoryBlockMetadata[]): Message[] {
  // By index: a history's dropped blocks hold distinct positions, so they are placed in a
  // table by position and read back in order. Anything else (a source's history blocks number
  // their messages on their own) is sorted, stably.
  const count = lost.length;
  let max = -1;
  for (let order = 0; order < count; order++) {
    const index = (lost[order] as HistoryBlockMetadata).index;
    if (!Number.isInteger(index) || index < 0) return sortedByIndex(lost);
    if (index > max) max = index;
  }
  if (max > 4 * count + 1024) return sortedByIndex(lost);
  const slots = new Int32Array(max + 1);
  for (let order = 0; order < count; order++) {
    const index = (lost[order] as HistoryBlockMetadata).index;
    if (slots[index] !== 0) return sortedByIndex(lost);
    slots[index] = order + 1;
  }
  const messages: Message[] = [];
  for (let index = 0; index <= max; index++) {
    const slot = slots[index] as number;
    if (slot !== 0) messages.push((lost[slot - 1] as HistoryBlockMetadata).message);
  }
  return messages;
}

/**
 * Builds the `compression__context` block: a summary of the dropped history from the
 * summarizer, or — with no summarizer — a notice saying what was omitted, listing failed
 * tool results so errors are never dropped silently.
 */
export async function summarizeDropped(input: {
  messages: readonly Message[];
  previousSummary: string | undefined;
  summarizer: Summarizer | undefined;
  maxTokens: number;
  counter: TokenCounter;
  droppedTokens: number;
  errorLines: readonly string[];
  /** Index (0-based) in the history of the first message in `messages`. */
  fromIndex: number;
  signal?: AbortSignal;
}): Promise<{ block: ContextBlock; actions: CompactionAction[]; coveredCount: number } | undefined> {
  const { counter } = input;
  if (input.messages.length === 0) return undefined;
  if (input.summarizer !== undefined) {
    // A rolling summary (decision 040): the previous summary is the oldest period, the lost
    // messages a new one; over the cap the oldest periods are condensed — it never freezes.
    const rolled = await rollSummary({
      periods:
        input.previousSummary === undefined || input.previousSummary === '' ? [] : [previousPeriod(input)],
      messages: input.messages,
      from: input.fromIndex + 1,
      capTokens: input.maxTokens,
      counter,
      summarizer: input.summarizer,
      ...(input.signal === undefined ? {} : { signal: input.signal }),
    });
    const actions: CompactionAction[] = [];
    if (rolled.failure !== undefined) {
      actions.push({
        type: 'summarizer-failed',
        summarizer: input.summarizer.name,
        error: rolled.failure,
        fallback: rolled.summarizer,
      });
    }
    if (rolled.text.length > 0) {
      const block = compressionBlock(rolled.text, counter, { summarized: true });
      actions.push({
        type: 'summarized',
        summarizer: rolled.summarizer,
        messages: input.messages.length,
        fromTokens: input.droppedTokens,
        summaryTokens: block.tokens,
      });
      return { block, actions, coveredCount: input.messages.length };
    }
  }
  const lines = [
    `[Earlier conversation omitted: ${input.messages.length} message(s), ${input.droppedTokens} tokens, did not fit the budget.]`,
  ];
  if (input.errorLines.length > 0)
    lines.push('Tool errors in the omitted part:', ...input.errorLines.slice(0, 5));
  const notice = [input.previousSummary, lines.join('\n')].filter((part) => part !== undefined).join('\n\n');
  const block = compressionBlock(notice, counter, { summarized: false });
  return {
    block,
    coveredCount: 0,
    actions: [
      {
        type: 'omitted-notice',
        messages: input.messages.length,
        tokens: block.tokens,
        errors: input.errorLines.length,
      },
    ],
  };
}

/** The stored summary as the oldest period: everything before the first lost message. */
function previousPeriod(input: {
  previousSummary?: string | undefined;
  fromIndex: number;
  summarizer?: Summarizer | undefined;
}): SummaryPeriod {
  const lines = (input.previousSummary ?? '').split('\n');
  // A rolled summary's heading is written again on top; keep only its body.
  const body = lines[0]?.startsWith('Summary of messages ') ? lines.slice(1) : lines;
  return {
    from: 1,
    count: Math.max(1, input.fromIndex),
    fromMessageId: 'history:start',
    throughMessageId: 'history:summary',
    level: 1,
    text: body.join('\n'),
    summarizer: input.summarizer?.name ?? 'summary',
  };
}

/** The block holding the (persisted or new) summary. */
export function compressionBlock(
  content: string,
  counter: TokenCounter,
  metadata: Record<string, unknown> = {},
): ContextBlock {
  return createBlock(
    {
      id: COMPRESSION_BLOCK_ID,
      layer: 'compression__context',
      source: 'compression',
      content,
      priority: 1,
      metadata,
    },
    counter,
  );
}

/**
 * The candidates with `summary` as the one compression block (replacing any earlier one).
 * Only the first `scan` may be one (the sources' blocks; the history's blocks after them are
 * `history:<id>`): a long history is not read for it.
 */
export function withSummary(
  candidates: readonly ContextBlock[],
  summary: ContextBlock,
  scan: number = candidates.length,
): ContextBlock[] {
  let found = false;
  const end = Math.min(scan, candidates.length);
  for (let index = 0; index < end && !found; index++)
    found = (candidates[index] as ContextBlock).id === COMPRESSION_BLOCK_ID;
  // Usually there is none to replace: one copy of a long list, without a callback per block.
  const pool = found ? candidates.filter((block) => block.id !== COMPRESSION_BLOCK_ID) : candidates.slice();
  if (!found) noteCopiedBlocks(pool, candidates, candidates.length);
  pool.push(summary);
  return pool;
}

/** One `- tool: message` line per failed tool result, for the omission notice. */
export function errorLines(messages: readonly Message[]): string[] {
  const lines: string[] = [];
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as Message;
    if (typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type !== 'tool-result') continue;
      const type = part.output.type;
      if (type === 'error-text' || type === 'error-json' || type === 'execution-denied') {
        lines.push(`- ${part.toolName}: ${toolOutputText(part.output).replace(/\s+/gu, ' ').slice(0, 160)}`);
      }
    }
  }
  return lines;
}

/**
 * The messages a new summary may be recorded as covering: the longest prefix of the
 * history that was both summarised and dropped in the final selection (a summary covers
 * "everything up to a message", so coverage must be a prefix).
 */
export function coveredPrefix(
  history: readonly Message[],
  summarized: readonly Message[],
  dropped: readonly DroppedBlock[],
): Message[] {
  if (summarized.length === 0) return [];
  const summarizedIds = new Set(summarized.map((message) => message.id));
  const droppedIds = new Set(
    dropped.filter((entry) => entry.block.layer === 'history').map((entry) => entry.block.id),
  );
  const prefix: Message[] = [];
  for (const message of history) {
    if (!summarizedIds.has(message.id) || !droppedIds.has(historyBlockId(message))) break;
    prefix.push(message);
  }
  return prefix;
}
