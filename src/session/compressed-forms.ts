import { createHash } from 'node:crypto';
import { conversationMessages } from '../core/conversation-messages.ts';
import { frozenMessageMemo } from '../core/deep-freeze.ts';
import { countMessage, type Message, type TokenCounter } from '../core/index.ts';
import type { ContextConfig } from '../workspace/index.ts';
import { costOfFirst } from './conversation-positions.ts';
import type { SessionCompression } from './session-store.ts';

/**
 * The compressed forms a long session sends for its older messages (decision 040; seed 004
 * §2): the requirement TODO standing for the user messages it quotes, the artifact index for
 * the tool outputs it holds, and the recall offered beside the summary.
 */

/** Newest indexed tool results a session's artifact view lists (seed 004 §2.2). */
export const TOOL_EVIDENCE_SHOWN = 8;

/** Ids of the user messages the requirement TODO quotes (open and done items), with the items' ids. */
export function requirementEvidence(compression: SessionCompression): Map<string, string[]> {
  const byMessage = new Map<string, string[]>();
  for (const item of compression.structured?.requirements.global.items ?? []) {
    if (item.status === 'cancelled') continue;
    for (const anchor of item.evidence) {
      const items = byMessage.get(anchor.messageId) ?? [];
      if (!items.includes(item.id)) items.push(item.id);
      byMessage.set(anchor.messageId, items);
    }
  }
  return byMessage;
}

/** The record with each user message the TODO quotes replaced by a pointer to its items. */
export function withTodoPointers(
  messages: readonly Message[],
  evidence: ReadonlyMap<string, string[]>,
  locale: 'zh' | 'en',
): Message[] {
  return messages.map((message, index) => {
    const items = evidence.get(message.id);
    if (items === undefined || message.role !== 'user') return message;
    const content =
      locale === 'en'
        ? `[user message #${index + 1} — in the requirement TODO as ${items.join(', ')}]`
        : `[用户消息 #${index + 1} — 已记入需求 TODO：${items.join('、')}]`;
    return { ...message, content };
  });
}

/** The record with each successful tool output the artifact index holds replaced by its handle. */
export function withEvidencePointers(messages: Message[], compression: SessionCompression): Message[] {
  const through = compression.processedThrough.artifacts;
  const indexed = compression.structured?.artifacts.index.evidence ?? [];
  if (through === null || indexed.length === 0) return messages;
  const byHash = new Map(indexed.filter((item) => item.ok).map((item) => [item.outputSha256, item]));
  const end = messages.findIndex((message) => message.id === through);
  return messages.map((message, index) => {
    if (index > end || typeof message.content === 'string') return message;
    if (!message.content.some((part) => part.type === 'tool-result')) return message;
    const content = message.content.map((part) => {
      if (part.type !== 'tool-result' || !('value' in part.output)) return part;
      const value = part.output.value;
      const text = typeof value === 'string' ? value : JSON.stringify(value);
      const item = byHash.get(createHash('sha256').update(text).digest('hex'));
      if (item === undefined) return part;
      const pointer = `[${part.toolName} output indexed as ${item.id} (${item.outputLength} chars, sha256:${item.outputSha256.slice(0, 12)}); see the artifact index, call ${part.toolName} again to read it]`;
      return { ...part, output: { type: 'text' as const, value: pointer } };
    });
    return { ...message, content };
  });
}

/**
 * The recall offered: up to the input budget, but never more than what the messages behind
 * the cut would cost verbatim, less the summary and the requirement TODO standing for them
 * (and the layers' frames) — so moving the cut never makes a call larger than sending everything would, and
 * `/compress` never grows the next call.
 */
export function recallTokens(input: {
  ratio: number;
  config: ContextConfig;
  /** The conversation (curated), oldest first; its first `cutCount` messages are covered. */
  conversation: readonly Message[];
  cutCount: number;
  summary: string;
  /** The requirement TODO and artifact index views: the other compressed forms of older messages. */
  todo: readonly string[];
  counter: TokenCounter;
}): number {
  const { counter } = input;
  const verbatim = costOfFirst(input.conversation, input.cutCount, counter, coveredCost);
  let compressed = input.summary === '' ? 0 : counter.countText(input.summary);
  for (const line of input.todo) compressed += counter.countText(`${line}\n`);
  // Recall is elastic: it is offered the whole input budget and selection keeps what the rest
  // of the call leaves (it sits after the history, so its size never moves a cached prefix);
  // `ratio` is the share the cut's planning keeps free for it (fit-session-call.ts).
  const { window, outputReserve } = input.config.budget;
  const slot = window - Math.floor(window * outputReserve);
  return Math.max(0, Math.min(slot, verbatim - compressed - LAYER_FRAMES_TOKENS));
}

/**
 * Each stored message's cost, per counter: every call of a long session sums the messages behind
 * its cut, and a stored message is the same frozen value from call to call (decision 061; an
 * agent's, decision 078's amendments), so it is measured once. A message that may change is
 * measured each time.
 */
const coveredCosts = frozenMessageMemo<number>();

function coveredCost(counter: TokenCounter, message: Message): number {
  let cost = coveredCosts.get(counter, message);
  if (cost === undefined) {
    cost = countMessage(counter, message);
    coveredCosts.set(counter, message, cost);
  }
  return cost;
}

/** What the summary's, the recall's and the TODO's layer messages cost around their text (each `<context layer="…">` user message ~19 tokens), with room to spare. */
const LAYER_FRAMES_TOKENS = 96;

/**
 * How many conversation messages (`conversationMessages`: commands, error records and failed
 * questions left out) are at or before `throughId` in the stored record: a summary whose run
 * ends on a chat command still covers what precedes it.
 */
export function coveredCount(stored: readonly Message[], throughId: string): number {
  const at = stored.findIndex((message) => message.id === throughId);
  if (at < 0) return 0;
  const kept = new Set(conversationMessages(stored).map((message) => message.id));
  let count = 0;
  for (const message of stored.slice(0, at + 1)) if (kept.has(message.id)) count++;
  return count;
}
