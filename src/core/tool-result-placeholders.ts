import {
  type ArtifactHandle,
  type ArtifactHandleStore,
  artifactPlaceholder,
  describeArtifact,
  OPEN_ARTIFACT_TOOL,
  putDescribed,
} from './artifact-handles.ts';
import { type ParsedPage, pageStub, parsePage, shrinkPage } from './artifact-pages.ts';
import { historyBlockId } from './measure-messages.ts';
import { isErrorResult, type Message, type Part, toolOutputText } from './message.ts';
import type { CompactionAction } from './report.ts';
import { countMessage, type TokenCounter } from './tokens.ts';

/** How tool outputs are kept out of the prompt as artifacts (see `CompileOptions.toolResults`). */
export interface ToolResultPolicy {
  /** Where replaced outputs are kept; the placeholder names their handle. */
  store: ArtifactHandleStore;
  /** An output above this many tokens is always replaced. Default 40 % of the input budget. */
  maxTokens?: number;
  /**
   * Outputs of earlier turns (before the current query) above this many tokens are replaced,
   * so a finished turn's file reads do not crowd the window. Default 256; `Infinity` keeps them.
   */
  earlierTurnMaxTokens?: number;
  /** Characters of preview in a placeholder. Default 160. */
  previewChars?: number;
  /**
   * How else the model can read part of an output, added to its placeholder after the
   * `open_artifact` pages, e.g. `call read_file with {"path":"a.md","startLine":1,"endLine":40}`
   * (the workspace's `describeReadFileParts`). Return undefined for outputs it does not know.
   */
  describeParts?: (output: { toolName: string; content: string; tokens: number }) => string | undefined;
  /**
   * The tool whose search covers the current turn's steps while the turn runs (a session's
   * `search_history`): a step a call drops for lack of room is reported `over-budget` with it as
   * `recallTool`, i.e. recallable. Unset: such a step is neither sent nor recallable.
   */
  recallTool?: string;
}

interface Memo {
  message: Message;
  actions: CompactionAction[];
}

/**
 * A message's replacement as the last call made it: what the message held then (a message
 * changed in place since is replaced again, as the measuring stage measures it again), the rule
 * (whether it is of the current turn, its limit, the preview's length), counter and
 * `describeParts` it was made under, the outputs it kept as artifacts (put again in another
 * store), and the store they were put in last.
 */
interface KeptMemo extends Memo {
  from: {
    content: Message['content'];
    role: Message['role'];
    name: Message['name'] | undefined;
    metadata: Message['metadata'] | undefined;
  };
  current: boolean;
  limit: number;
  previewChars: number | undefined;
  counter: TokenCounter;
  describeParts: ToolResultPolicy['describeParts'];
  artifacts: { entry: ArtifactHandle; content: string }[];
  store: ArtifactHandleStore;
}

/** An earlier turn's tool output above this many tokens is a placeholder (`earlierTurnMaxTokens`' default). */
export const EARLIER_TURN_MAX_TOKENS = 256;

/**
 * Replaced messages by original (and the rule that applied): a recompile reuses them — the
 * same replacement object, so what later stages keep per message object holds — whatever
 * store the call hands in. A store that has not seen a message's artifacts gets them put
 * again: the session engine and runtime agents give each turn or agent call a store of its
 * own, and a memo per store made every call replace every earlier output of the session anew.
 */
const memos = new WeakMap<Message, KeptMemo>();

/**
 * A current output sized against the room: where it is, its tokens, and what it is — a page of
 * `open_artifact`, or (`fitOutputs`) any other output, kept whole or as an artifact.
 */
interface SizedOutput {
  index: number;
  part: number;
  page: ParsedPage | undefined;
  toolName: string;
  text: string;
  tokens: number;
  /** An output (not a page) over the policy's limit: never sent whole, its placeholder sized to the room (fitted). */
  oversized: boolean;
}

/**
 * Replaces, in `messages`, tool outputs that are oversized (> `maxTokens`) or belong to an
 * earlier turn (index < `currentFrom`, > `earlierTurnMaxTokens`) with a placeholder naming
 * an artifact handle; the content goes to the policy's store. Failed results are never
 * replaced (they are short and must stay visible). Deterministic: the same message under
 * the same rule always gives the same placeholder, so a cached prefix stays identical.
 *
 * Pages of `open_artifact` are never kept as artifacts of their own: an earlier-turn page
 * becomes a stub naming its range in the original artifact; the current turn's pages share
 * `pageTokens` with the current messages around them, the newest first — the newest shrinks
 * to what is left (its header then says where the rest starts), older ones that no longer
 * fit become stubs.
 */
export function placeholderToolResults(input: {
  messages: readonly Message[];
  currentFrom: number;
  policy: ToolResultPolicy;
  maxTokens: number;
  counter: TokenCounter;
  /** Tokens the current messages may take with their pages. Default `maxTokens`. */
  pageTokens?: number;
  /**
   * Every current output shares `pageTokens`, not only the pages (a call that could not keep
   * its turn's outputs): newest first, an output that does not fit what is left is kept as an
   * artifact (reason `no-room`), so it is read by pages instead of being dropped.
   */
  fitOutputs?: boolean;
}): { messages: Message[]; actions: CompactionAction[] } {
  const { policy, counter } = input;
  const earlier = policy.earlierTurnMaxTokens ?? EARLIER_TURN_MAX_TOKENS;
  const sized: SizedOutput[] = [];
  const replaced = input.messages.map((message, index) => {
    if (typeof message.content === 'string' || !message.content.some((part) => part.type === 'tool-result'))
      return { message, actions: [] as CompactionAction[] };
    const current = index >= input.currentFrom;
    const limit = current ? input.maxTokens : Math.min(earlier, input.maxTokens);
    const fitted = current && input.fitOutputs === true;
    const known = fitted ? undefined : memos.get(message);
    if (
      known !== undefined &&
      madeFrom(known, message) &&
      known.current === current &&
      known.limit === limit &&
      known.previewChars === policy.previewChars &&
      known.counter === counter &&
      known.describeParts === policy.describeParts
    ) {
      if (known.store !== policy.store) putAgain(policy, known);
      return known;
    }
    const own: CompactionAction[] = [];
    const artifacts: KeptMemo['artifacts'] = [];
    let sizedBelow = false;
    const content = message.content.map((part, partIndex): Part => {
      if (part.type !== 'tool-result' || isErrorResult(part as Part)) return part;
      const text = toolOutputText(part.output);
      const page = part.toolName === OPEN_ARTIFACT_TOOL ? parsePage(text) : undefined;
      const tokens = counter.countText(text);
      // A current page (fitted, any output: one over the limit by its placeholder) is sized
      // below, against the room the current messages leave.
      if ((page !== undefined && current) || (fitted && page === undefined)) {
        sizedBelow = true;
        sized.push({
          index,
          part: partIndex,
          page,
          toolName: part.toolName,
          text,
          tokens,
          oversized: page === undefined && tokens > limit,
        });
        return part;
      }
      if (tokens <= limit) return part;
      let value: string;
      let handle: string;
      if (page === undefined) {
        let entry: ArtifactHandle;
        ({ value, entry } = keptAsArtifact(policy, part.toolName, text, tokens));
        handle = entry.handle;
        artifacts.push({ entry, content: text });
      } else {
        value = pageStub(page);
        handle = page.handle;
      }
      own.push({
        type: 'placeholder',
        blockId: historyBlockId(message),
        toolName: part.toolName,
        handle,
        fromTokens: tokens,
        toTokens: counter.countText(value),
        reason: tokens > input.maxTokens && page === undefined ? 'oversized' : 'earlier-turn',
      });
      return { ...part, output: { type: 'text', value } };
    });
    const entry: KeptMemo = {
      from: { content: message.content, role: message.role, name: message.name, metadata: message.metadata },
      current,
      limit,
      previewChars: policy.previewChars,
      message:
        own.length === 0
          ? message
          : { ...message, content, metadata: { ...message.metadata, placeholders: own.length } },
      actions: own,
      counter,
      describeParts: policy.describeParts,
      artifacts,
      store: policy.store,
    };
    // A message with an output sized below (a current page) depends on the room around it: not memoised.
    if (!sizedBelow) memos.set(message, entry);
    return entry;
  });
  if (sized.length > 0) sizeOutputs({ replaced, sized, input });
  return {
    messages: replaced.map((entry) => entry.message),
    actions: replaced.flatMap((entry) => entry.actions),
  };
}

/**
 * Fits the current turn's pages (with `fitOutputs`, all its outputs) into `pageTokens` less
 * the current messages around them, the newest first: the newest page shrinks to what is
 * left, an older page that does not fit becomes a stub, any other output that does not fit
 * is kept as an artifact. With `fitOutputs` the messages around an output are counted as the
 * newest-first walk reaches them, so the turn's oldest steps (which the selection drops first)
 * do not take the room of the newest page; and when the older outputs' stubs and placeholders
 * and the messages around them still overrun the room, the oldest outputs sent whole give way
 * to stubs first, then the newest output to what is left. Updates `replaced` in place.
 */
function sizeOutputs(args: {
  replaced: Memo[];
  sized: SizedOutput[];
  input: Parameters<typeof placeholderToolResults>[0];
}): void {
  const { replaced, sized, input } = args;
  const { counter } = input;
  const currentFrom = Math.max(0, input.currentFrom);
  // The tokens of the outputs sized here, by message.
  const sizedTokens = new Map<number, number>();
  for (const found of sized) sizedTokens.set(found.index, (sizedTokens.get(found.index) ?? 0) + found.tokens);
  let room = input.pageTokens ?? input.maxTokens;
  // What a message takes besides its outputs sized here.
  const frame = (index: number) =>
    countMessage(counter, (replaced[index] as Memo).message) - (sizedTokens.get(index) ?? 0);
  // Messages from `framed` on are counted against the room: unfitted all at once, fitted as
  // the newest-first walk reaches them.
  let framedFrom = replaced.length;
  if (input.fitOutputs !== true) {
    let all = 0;
    for (const tokens of sizedTokens.values()) all += tokens;
    room -= counter.countMessages(replaced.slice(currentFrom).map((entry) => entry.message)) - all;
    framedFrom = currentFrom;
  }
  const newestFirst = [...sized].reverse();
  let plan = planOutputs(newestFirst, room, framedFrom, frame, input, new Set());
  if (input.fitOutputs === true && plan.left < 0)
    plan = giveWay(plan, newestFirst, room, framedFrom, frame, input);
  for (const [found, cut] of plan.cuts) {
    const entry = replaced[found.index] as Memo;
    const message = entry.message;
    const content = (message.content as Part[]).map((part, partIndex) =>
      partIndex === found.part && part.type === 'tool-result'
        ? { ...part, output: { type: 'text' as const, value: cut.value } }
        : part,
    );
    const action: CompactionAction = {
      type: 'placeholder',
      blockId: historyBlockId(message),
      toolName: found.toolName,
      handle: cut.handle,
      fromTokens: found.tokens,
      toTokens: cut.tokens,
      reason: found.page !== undefined ? 'page-shrunk' : found.oversized ? 'oversized' : 'no-room',
    };
    replaced[found.index] = {
      message: {
        ...message,
        content,
        metadata: { ...message.metadata, placeholders: entry.actions.length + 1 },
      },
      actions: [...entry.actions, action],
    };
  }
}

/**
 * A fitted plan that overran its room (the older outputs' stubs and placeholders and the
 * messages around them) made to fit, when it can be: the oldest outputs sent whole give way
 * to their stubs or brief placeholders first, then the newest output to what is left. When
 * even that would not fit, the plan stays as it is and the selection drops the oldest steps.
 */
function giveWay(
  plan: OutputPlan,
  newestFirst: readonly SizedOutput[],
  room: number,
  framedFrom: number,
  frame: (index: number) => number,
  input: Parameters<typeof placeholderToolResults>[0],
): OutputPlan {
  const newest = newestFirst[0] as SizedOutput;
  // What each output would save as its smallest form: a stub, or a brief placeholder.
  const saving = (found: SizedOutput) =>
    (plan.cuts.get(found)?.tokens ?? found.tokens) - leastTokens(found, input);
  let possible = Math.max(0, saving(newest));
  for (const found of newestFirst)
    if (found !== newest && !plan.cuts.has(found)) possible += Math.max(0, saving(found));
  if (possible < -plan.left) return plan;
  const demoted = new Set<SizedOutput>();
  let planned = plan;
  // Oldest first, as many as the estimate says, then again while the walk still overruns.
  for (let at = newestFirst.length - 1; at > 0 && planned.left < 0; ) {
    let freed = 0;
    for (; at > 0 && freed < -planned.left; at--) {
      const found = newestFirst[at] as SizedOutput;
      const saves = planned.cuts.has(found) ? 0 : saving(found);
      if (saves <= 0) continue;
      demoted.add(found);
      freed += saves;
    }
    if (freed === 0) break;
    planned = planOutputs(newestFirst, room, framedFrom, frame, input, demoted);
  }
  if (planned.left < 0)
    planned = planOutputs(newestFirst, room + planned.left, framedFrom, frame, input, demoted);
  return planned;
}

/** The tokens of an output's smallest form in a fitted call: its page's stub, or its brief placeholder. */
function leastTokens(found: SizedOutput, input: Parameters<typeof placeholderToolResults>[0]): number {
  const { counter } = input;
  if (found.page !== undefined) return counter.countText(pageStub(found.page));
  const entry = describeArtifact({
    content: found.text,
    toolName: found.toolName,
    ...(input.policy.previewChars === undefined ? {} : { previewChars: input.policy.previewChars }),
  });
  const brief = counter.countText(artifactPlaceholder(entry, { tokens: found.tokens, brief: true }));
  return found.oversized ? brief : Math.min(found.tokens, brief);
}

/** A newest-first walk's cuts, and the room it left (negative: it overran). */
interface OutputPlan {
  cuts: Map<SizedOutput, OutputCut>;
  left: number;
}

/** What a sized output is sent as when it is not sent whole. */
interface OutputCut {
  value: string;
  handle: string;
  tokens: number;
}

/**
 * One newest-first walk of {@link sizeOutputs}: which outputs are cut and to what, and the
 * room left (negative: the walk overran it). Outputs in `demoted` are never sent whole.
 */
function planOutputs(
  newestFirst: readonly SizedOutput[],
  room: number,
  framedFrom: number,
  frame: (index: number) => number,
  input: Parameters<typeof placeholderToolResults>[0],
  demoted: ReadonlySet<SizedOutput>,
): OutputPlan {
  const { counter } = input;
  const cuts = new Map<SizedOutput, OutputCut>();
  let framed = framedFrom;
  let newestPage = true;
  for (const found of newestFirst) {
    const { page } = found;
    for (; framed > found.index; framed--) room -= frame(framed - 1);
    if (found.tokens <= room && !found.oversized && !demoted.has(found)) {
      room -= found.tokens;
      if (page !== undefined) newestPage = false;
      continue;
    }
    let value: string | undefined;
    let handle: string;
    if (page === undefined) {
      // With too little room for the preview, the handle and how to read it.
      const fits = (placeholder: string) => counter.countText(placeholder) <= room;
      let entry: ArtifactHandle;
      ({ value, entry } = keptAsArtifact(input.policy, found.toolName, found.text, found.tokens, fits));
      handle = entry.handle;
      // A placeholder no smaller than the output would only cost more: the output stays (and
      // the selection drops the oldest steps first).
      if (!found.oversized && counter.countText(value) >= found.tokens) {
        room -= found.tokens;
        continue;
      }
    } else {
      // A page that gives way (`demoted`) becomes a stub, as an older one does.
      if (newestPage && !demoted.has(found))
        value = shrinkPage(page, counter, Math.max(0, room)) ?? pageStub(page, false);
      value ??= pageStub(page);
      handle = page.handle;
      newestPage = false;
    }
    const tokens = counter.countText(value);
    room -= tokens;
    cuts.set(found, { value, handle, tokens });
  }
  // The messages before the oldest output: what the room holds besides the outputs.
  for (const from = Math.max(0, input.currentFrom); framed > from; framed--) room -= frame(framed - 1);
  return { cuts, left: room };
}

/** Whether `message` holds what it held when `memo` was made of it (checked by pointer). */
function madeFrom(memo: KeptMemo, message: Message): boolean {
  const { from } = memo;
  return (
    Object.is(from.content, message.content) &&
    Object.is(from.role, message.role) &&
    Object.is(from.name, message.name) &&
    Object.is(from.metadata, message.metadata)
  );
}

/** The artifacts of `memo` put in the policy's store, which is then the memo's. */
function putAgain(policy: ToolResultPolicy, memo: KeptMemo): void {
  for (const { entry, content } of memo.artifacts)
    putDescribed(policy.store, entry, content, policy.previewChars);
  memo.store = policy.store;
}

/**
 * `text` put in the policy's store: the placeholder that stands for it and its handle — a brief
 * one (no preview, no parts) when `fits` says the full one does not fit.
 */
function keptAsArtifact(
  policy: ToolResultPolicy,
  toolName: string,
  text: string,
  tokens: number,
  fits?: (placeholder: string) => boolean,
): { value: string; entry: ArtifactHandle } {
  const entry = policy.store.put({
    content: text,
    toolName,
    ...(policy.previewChars === undefined ? {} : { previewChars: policy.previewChars }),
  });
  const parts = policy.describeParts?.({ toolName, content: text, tokens });
  const value = artifactPlaceholder(entry, { tokens, ...(parts === undefined ? {} : { parts }) });
  return {
    value: fits === undefined || fits(value) ? value : artifactPlaceholder(entry, { tokens, brief: true }),
    entry,
  };
}
