import type { ContextBlock } from './block.ts';
import { renderContexts } from './collector.ts';
import type { CompileRequest } from './compile-types.ts';
import {
  type CarriedRun,
  composeWithHistory,
  forgetTaggedRun,
  layerOf,
  taggedHistoryRun,
} from './compose.ts';
import { countJoined } from './count-joined.ts';
import type { HistoryBlockMetadata } from './history.ts';
import type { ContextKey } from './layers.ts';
import { asMeasured, type MessageMeasure, measureMessage } from './measure-messages.ts';
import type { Message } from './message.ts';
import type { ResolvedCall } from './resolve-call.ts';
import type { Selection } from './select.ts';
import { countMessage } from './tokens.ts';
import type { HistoryBlockSource } from './turn-history.ts';

/** What `renderContexts` puts between two blocks of a layer. */
const CONTEXT_SEPARATOR = '\n\n';

/** The messages of one call and what they cost (see {@link composeCall}). */
export interface ComposedCall {
  messages: Message[];
  /** Each message's cost as sent, aligned with `messages` (request overhead excluded). */
  costs: number[];
  /** Tokens sent: request overhead, every message, the tool definitions. */
  total: number;
  contexts: Record<ContextKey, string>;
  history: Message[];
  steps: Message[];
  /**
   * Where the history's tagged copies sit in `messages` (`start` to `end`, exclusive), when
   * none carries a merged message's `layers` list: each is a `history` message, by position.
   */
  historyRun?: { start: number; end: number };
  /** `selection.kept[at..at + count)` are the history's blocks taken by position (see `keptHistoryRun`). */
  keptHistory?: { at: number; count: number };
  /**
   * The kept history's run as one tagged run (it is the whole history sent: its copies sit at
   * `historyRun.start`, its blocks at `keptHistory.at`), and what it carried over.
   */
  carried?: CarriedRun;
}

/**
 * Stage 5, compose: renders the kept blocks into the call's ordered messages (history before
 * the query, the steps after it) and counts exactly what is sent.
 */
export function composeCall(call: ResolvedCall, request: CompileRequest, selection: Selection): ComposedCall {
  const { counter, query } = call;
  // Kept blocks come in collection order, so history blocks are already oldest first.
  const steps: Message[] = [];
  const keptContext: ContextBlock[] = [];
  const kept = selection.kept;
  // Sized for every kept block and cut to what was written (no regrowing over a long history).
  const history = new Array<Message>(kept.length);
  const historyCosts = new Array<number>(kept.length);
  let historyCount = 0;
  let costCount = 0;
  const run = keptHistoryRun(call, kept);
  // Where the run's messages start in `history`.
  let runStart = 0;
  for (let index = 0; index < kept.length; index++) {
    if (run !== undefined && index === run.at) {
      runStart = historyCount;
      // The kept history's run, by position: its messages and costs without reading a block.
      const { messages, offset } = run.source;
      const sums = call.historyTokensBefore;
      for (let at = run.from; at < run.from + run.count; at++) {
        history[historyCount++] = messages[offset + at] as Message;
        historyCosts[costCount++] =
          sums === undefined
            ? (call.historyCandidates[at] as ContextBlock).tokens
            : (sums[at + 1] as number) - (sums[at] as number);
      }
      index += run.count - 1;
      continue;
    }
    const block = kept[index] as ContextBlock;
    if (block.layer === 'history') {
      const metadata = block.metadata as HistoryBlockMetadata;
      if (call.isStep(block)) steps.push(metadata.message);
      else history[historyCount++] = asPrepared(call, metadata.index, metadata.message);
      historyCosts[costCount++] = block.tokens;
    } else {
      keptContext.push(block);
    }
  }
  history.length = historyCount;
  historyCosts.length = costCount;
  const rendered = renderContexts(keptContext);
  const contexts = { ...call.fixedContexts, ...rendered };
  // When the run is the whole history sent, its tagged copies are carried over by block.
  const tagged =
    run === undefined || run.count !== historyCount
      ? undefined
      : taggedHistoryRun(call.historyCandidates, run.from, run.count, (index) =>
          asPrepared(call, run.from + index, history[index] as Message),
        );
  if (tagged === undefined) {
    forgetTaggedRun();
    // A frozen history's run was taken by position, unread: its messages as measured.
    if (run !== undefined && call.frozenHistory !== undefined)
      for (let at = 0; at < run.count; at++)
        history[runStart + at] = asPrepared(call, run.from + at, history[runStart + at] as Message);
  }
  const composed = composeWithHistory(
    {
      ...(request.systemPrompt === undefined ? {} : { systemPrompt: request.systemPrompt }),
      contexts,
      history,
      ...(query === undefined ? {} : { query: call.queryInHistory ?? query }),
      steps,
      policy: call.policy,
    },
    tagged,
    call.reservedIds,
  );
  const { messages } = composed;
  // Count what is emitted: every message is a separate API field, so the request costs the
  // request overhead plus each message's own cost (memoised per message, exact).
  let historyIndex = 0;
  const costOf = (message: Message): number => {
    const layer = layerOf(message);
    if (layer === 'history') return historyCosts[historyIndex++] ?? measureMessage(message, counter).tokens;
    // A layer sent from its blocks is counted from the blocks' counts (each block's text was
    // counted when it was made), not tokenised a second time; only the joins are.
    const text = layer === undefined ? undefined : rendered[layer as ContextKey];
    const content = message.content;
    if (text === undefined || typeof content !== 'string' || counter.isSplitPoint === undefined)
      return countMessage(counter, message);
    const blocks = keptContext.filter((block) => block.layer === layer);
    const tokens = blocks.map((block) => block.tokens);
    const known = layerCosts.get(layer as string);
    // Checked before the text is searched for in the message (a search for a long layer text
    // costs more than the rest of its cost).
    if (
      known !== undefined &&
      known.counter === counter &&
      known.content === content &&
      known.text === text &&
      known.role === message.role &&
      known.name === message.name &&
      sameNumbers(known.tokens, tokens)
    )
      return known.cost;
    const at = content.indexOf(text);
    if (at < 0) return countMessage(counter, message);
    const layerText = {
      text,
      tokens: countJoined(
        counter,
        blocks.map((block) => ({ text: block.content, tokens: block.tokens })),
        CONTEXT_SEPARATOR,
      ),
    };
    // The text may be wrapped (a late layer travels as `<context layer="…">` user text).
    const prefix = content.slice(0, at);
    const suffix = content.slice(at + text.length);
    const parts = [
      ...(prefix === '' ? [] : [{ text: prefix, tokens: counter.countText(prefix) }]),
      layerText,
      ...(suffix === '' ? [] : [{ text: suffix, tokens: counter.countText(suffix) }]),
    ];
    const cost = countMessage(counter, { ...message, content: '' }) + countJoined(counter, parts, '');
    layerCosts.set(layer as string, {
      counter,
      content,
      text,
      role: message.role,
      name: message.name,
      tokens,
      cost,
    });
    return cost;
  };
  // The history's tagged copies sit together after the layers before them (compose puts them
  // there, in order): their costs are the kept blocks', without reading each copy's layer.
  const costs = new Array<number>(messages.length);
  let at = 0;
  while (at < messages.length && layerOf(messages[at] as Message) !== 'history') {
    costs[at] = costOf(messages[at] as Message);
    at++;
  }
  for (let end = Math.min(messages.length, at + history.length); at < end; at++) {
    costs[at] = historyCosts[historyIndex++] as number;
  }
  for (; at < messages.length; at++) costs[at] = costOf(messages[at] as Message);
  const total =
    (messages.length === 0 ? 0 : counter.overhead.perRequest + costs.reduce((sum, cost) => sum + cost, 0)) +
    call.toolTokens;
  const result: ComposedCall = { messages, costs, total, contexts, history, steps };
  if (composed.historyPlain && composed.historyLength > 0)
    result.historyRun = { start: composed.historyStart, end: composed.historyStart + composed.historyLength };
  if (run !== undefined) result.keptHistory = { at: run.at, count: run.count };
  if (tagged !== undefined) result.carried = tagged.carried;
  return result;
}

/**
 * The last cost of each layer's message counted from its blocks: a layer sent again with the
 * same text, wrapping and block counts (a source returns the same texts on every compile)
 * costs what it cost, without counting its joins again.
 */
const layerCosts = new Map<
  string,
  {
    counter: ResolvedCall['counter'];
    content: string;
    text: string;
    role: Message['role'];
    name: string | undefined;
    tokens: number[];
    cost: number;
  }
>();

function sameNumbers(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}

/**
 * The kept history message `message`, the `index`-th from the first kept one: as its frozen
 * history's preparation measured it (see `asMeasured`), or itself (a history not frozen is
 * measured, and checked, on every compile; a step or a source's message is not the history's).
 */
function asPrepared(call: ResolvedCall, index: number, message: Message): Message {
  const frozen = call.frozenHistory;
  if (frozen === undefined) return message;
  const at = frozen.keptFrom + index;
  return frozen.messages[at] === message
    ? asMeasured(message, frozen.measures[at] as MessageMeasure)
    : message;
}

/**
 * Where the kept history's blocks sit as one run of the history candidates made from checked
 * messages (`call.historyMadeFrom`) or from a frozen history's (`call.frozenHistoryFrom`, as
 * they were when it was prepared): `kept[at + i]` is `historyCandidates[from + i]`, made
 * from `source.messages[source.offset + from + i]`, for `i < count`. Found from the first kept
 * history block (its `metadata.index` is its place among the candidates), then by pointer.
 */
function keptHistoryRun(
  call: ResolvedCall,
  kept: readonly ContextBlock[],
): { at: number; from: number; count: number; source: HistoryBlockSource } | undefined {
  const source = call.historyMadeFrom ?? call.frozenHistoryFrom;
  if (source === undefined || source.count === 0) return undefined;
  let at = 0;
  while (at < kept.length && (kept[at] as ContextBlock).layer !== 'history') at++;
  if (at === kept.length) return undefined;
  const candidates = call.historyCandidates;
  const first = kept[at] as ContextBlock;
  const hint = first.metadata.index;
  const from = typeof hint === 'number' && candidates[hint] === first ? hint : candidates.indexOf(first);
  if (from < 0 || from >= source.count) return undefined;
  let count = 1;
  while (
    at + count < kept.length &&
    from + count < source.count &&
    Object.is(kept[at + count], candidates[from + count])
  ) {
    count++;
  }
  return { at, from, count, source };
}
