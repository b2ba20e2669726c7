import type { ContextBlock } from './block.ts';
import { contextAsUserText } from './emit/stable.ts';
import { hashText } from './fingerprint.ts';
import { HistoryRecord, historyRecordOf, setHistoryRecord } from './history-records.ts';
import { assertContextKey, type ContextKey, createLayerRegistry, type LayerRegistry } from './layers.ts';
import type { Message } from './message.ts';
import { firstFreeId, isReservedMessageId } from './reserved-message-id.ts';
import { createRunMemo } from './run-memo.ts';

/** How {@link compose} orders and renders layers. */
export interface ComposePolicy {
  /**
   * Merge all layers rendered as system messages (system prompt and every `__context`
   * layer before the history) into one system message, each under its title. Default false:
   * one system message per layer.
   */
  merge?: boolean;
  /**
   * The single switch for shared `__context` layers (seed 000's `enable_share_context`).
   * When false, only layers in `alwaysInclude` and unshared layers are injected. Default true.
   */
  enableShareContext?: boolean;
  /** Shared layers injected even when sharing is off. Default `['framework__context']`. */
  alwaysInclude?: readonly string[];
  /**
   * `default`: seed 000's order — every context layer before the history.
   * `cache-friendly`: stable layers first, then the history, then the volatile context
   * layers just before the query (as user text `<context layer="…">`), so a provider's
   * prompt cache covers the history too and per-call content never breaks it.
   */
  order?: 'default' | 'cache-friendly';
  /** The layer registry; default the eight layers of seed 000. */
  layers?: LayerRegistry;
}

/**
 * Everything {@link compose} may see. There is deliberately no field that could carry raw
 * agent state: the composer renders prepared layers, it never reads or writes state.
 */
export interface ComposeInput {
  systemPrompt?: string;
  contexts?: Partial<Record<ContextKey, string>>;
  /** The checkpoint messages, oldest first. */
  history?: readonly Message[];
  /** The current input. A string gets the deterministic id `query:<hash>`. */
  query?: Message | string;
  /** Tool-loop messages of this turn, placed after the query (layer `history`). */
  steps?: readonly Message[];
  policy?: ComposePolicy;
}

/** Metadata ctxloom sets on every composed message. */
export interface ComposedMetadata {
  /** The layer the message renders (`history` and `query` included). */
  layer: string;
  /** All layers a merged system message renders. */
  layers?: string[];
}

/**
 * Renders the layers into the ordered messages of one call (seed 000's ContextComposer).
 * Pure: no I/O, no state, no templates beyond layer titles. The query enters exactly once:
 * when the history already ends with a message of the query's id, it is not added again. A
 * layer message is `layer:<name>`, or the first free `layer:<name>:<n>` when a history, step or
 * query message has that id (see `isReservedMessageId`): no two messages share an id.
 * @example
 * const messages = compose({ systemPrompt: 'You are a tutor.', contexts: { knowledge__context: '…' }, history, query: 'Why?' });
 */
export function compose(input: ComposeInput): Message[] {
  const given = [...(input.history ?? []), ...(input.steps ?? [])];
  const query = toQueryMessage(input.query);
  if (query !== undefined) given.push(query);
  const reserved = new Set(given.filter((message) => isReservedMessageId(message.id)).map(({ id }) => id));
  return composeWithHistory(input, undefined, reserved.size === 0 ? undefined : reserved).messages;
}

/**
 * {@link compose}, also telling where the history's tagged copies sit in the messages
 * (`historyStart`, `history.length` of them, in order) and whether none of them carries a
 * merged system message's `layers` list (`historyPlain`): a later stage may then take their
 * layer as `history` by position, without reading each copy.
 */
export function composeWithHistory(
  input: ComposeInput,
  /** The history's tagged copies when the caller has them (see {@link taggedHistoryRun}): `input.history` is then not read. */
  taggedCopies?: { copies: readonly Message[]; plain: boolean; carried?: CarriedRun },
  /** The reserved ids the history, steps and query have (see {@link compose}); undefined: none. */
  reservedIds?: ReadonlySet<string>,
): {
  messages: Message[];
  historyStart: number;
  historyLength: number;
  historyPlain: boolean;
} {
  const policy = input.policy ?? {};
  const layers = policy.layers ?? createLayerRegistry();
  const included = layerFilter(policy, layers);
  const contexts = input.contexts ?? {};
  for (const key of Object.keys(contexts)) {
    assertContextKey(key);
    layers.get(key);
  }

  const stableContext: Message[] = [];
  const volatileContext: Message[] = [];
  const idOf = (id: string) => (reservedIds === undefined ? id : firstFreeId(id, reservedIds));
  if (input.systemPrompt !== undefined && input.systemPrompt.length > 0) {
    stableContext.push(layerMessage('system', input.systemPrompt, idOf));
  }
  const cacheFriendly = policy.order === 'cache-friendly';
  for (const layer of layers.list()) {
    if (layer.kind !== 'context' || !included(layer.name)) continue;
    const text = contexts[layer.name as ContextKey];
    if (text === undefined || text.length === 0) continue;
    const target = cacheFriendly && !layer.stable ? volatileContext : stableContext;
    target.push(layerMessage(layer.name, text, idOf));
  }

  const query = toQueryMessage(input.query);

  const head = policy.merge === true ? mergeSystem(stableContext, layers, idOf) : stableContext;
  // Late layers travel as user text (`<context layer="…">`), the form every provider accepts
  // after the conversation has started, so what is counted here is what is sent.
  const tail = (policy.merge === true ? mergeSystem(volatileContext, layers, idOf) : volatileContext).map(
    (message): Message => ({ ...message, role: 'user', content: contextAsUserText(message) }),
  );
  // The history's tagged copies are written into the messages in place (no array of copies
  // to join afterwards), after the head and before the tail.
  const {
    messages,
    count: historyLength,
    plain: historyPlain,
    records,
  } = taggedCopies === undefined
    ? taggedHistoryInto(head, input.history ?? [], tail)
    : joinTagged(head, taggedCopies, tail);
  const lastHistory =
    historyLength === 0 ? undefined : (messages[head.length + historyLength - 1] as Message);
  const queryEntered = query !== undefined && lastHistory?.id === query.id;
  if (query !== undefined && !queryEntered) messages.push(tagged(query, 'query'));
  const steps = input.steps ?? [];
  const stepsStart = messages.length;
  const stepRecords = new Array<HistoryRecord>(steps.length);
  for (let index = 0; index < steps.length; index++) {
    const entry = taggedEntry(steps[index] as Message);
    stepRecords[index] = entry;
    messages.push(entry.message);
  }
  lastTagged = {
    messages,
    start: head.length + (taggedCopies?.carried?.run.recordsFrom ?? 0),
    records,
    stepsStart,
    steps: stepRecords,
  };
  return { messages, historyStart: head.length, historyLength, historyPlain };
}

/**
 * The records of the history copies and steps the last {@link composeWithHistory} tagged, by
 * place in its messages: `records` from `start` (a carried run's: only those not taken from
 * the last run), `steps` from `stepsStart`.
 */
let lastTagged:
  | {
      messages: readonly Message[];
      start: number;
      records: readonly HistoryRecord[];
      stepsStart: number;
      steps: readonly HistoryRecord[];
    }
  | undefined;

/**
 * The record (see {@link HistoryRecord}) of `messages[index]` when it is a history copy or a
 * step the last compose tagged into `messages`, else undefined: a report finds there what it
 * keeps for the copy, with no lookup by message.
 */
export function taggedRecordAt(messages: readonly Message[], index: number): HistoryRecord | undefined {
  const known = lastTagged;
  if (known === undefined || known.messages !== messages) return undefined;
  const record =
    index >= known.stepsStart
      ? known.steps[index - known.stepsStart]
      : index >= known.start
        ? known.records[index - known.start]
        : undefined;
  return record !== undefined && record.message === messages[index] ? record : undefined;
}

/** The layer a composed message renders (from its metadata), or undefined. */
export function layerOf(message: Message): string | undefined {
  const layer = message.metadata?.layer;
  return typeof layer === 'string' ? layer : undefined;
}

/** The query as a message; a string query gets a content-derived id. */
export function toQueryMessage(query: Message | string | undefined): Message | undefined {
  if (query === undefined) return undefined;
  if (typeof query !== 'string') return query;
  return { id: `query:${hashText(query)}`, role: 'user', content: query };
}

/** Decides which layers are injected under the share policy. */
export function layerFilter(policy: ComposePolicy, layers: LayerRegistry): (name: string) => boolean {
  const share = policy.enableShareContext ?? true;
  const always = new Set(policy.alwaysInclude ?? ['framework__context']);
  return (name) => {
    if (!layers.has(name)) return false;
    const layer = layers.get(name);
    return !layer.shared || share || always.has(name);
  };
}

function layerMessage(layer: string, content: string, idOf: (id: string) => string): Message {
  return { id: idOf(`layer:${layer}`), role: 'system', content, metadata: { layer } };
}

/** A history message's record once tagged: its copy and the values it was tagged from. */
type TaggedHistory = HistoryRecord & { content: Message['content']; message: Message };

function tagged(message: Message, layer: string): Message {
  return layer === 'history' ? taggedEntry(message).message : tag(message, layer);
}

/** Whether `known` was tagged from `message` as it is now (a record not tagged yet never was). */
function sameAs(known: HistoryRecord, message: Message): boolean {
  return (
    known.content === message.content &&
    known.metadata === message.metadata &&
    known.role === message.role &&
    known.name === message.name
  );
}

/**
 * A history message as tagged, from its record (see {@link HistoryRecord}): a recompile sends
 * the same history, and reusing its tagged copies spares an allocation per message (and lets
 * later stages memoise by them). Reused only while the original's content, metadata, role and
 * name are the same values; a message changed since gets a new record (the old one stays with
 * whatever holds it, describing the copy it made), keeping the preview, which is checked
 * against the content it was made from.
 */
function taggedEntry(message: Message): TaggedHistory {
  const known = historyRecordOf(message);
  if (known !== undefined && sameAs(known, message)) return known as TaggedHistory;
  // A record the report made for a preview, never tagged, is filled in place.
  const record = known !== undefined && known.message === undefined ? known : new HistoryRecord(message);
  record.content = message.content;
  record.metadata = message.metadata;
  record.role = message.role;
  record.name = message.name;
  record.message = tag(message, 'history');
  // Any list (not only one of more than one): a list changed in place stays a list.
  record.merged = Array.isArray(message.metadata?.layers);
  if (record !== known) {
    if (known !== undefined) {
      record.previewContent = known.previewContent;
      record.previewText = known.previewText;
    }
    setHistoryRecord(message, record);
  }
  return record as TaggedHistory;
}

/** Tagged copies of the runs of history earlier calls sent (each step of a tool loop resends it). */
const taggedRuns = createRunMemo<Message, TaggedHistory>();

/**
 * `head`, the history's tagged copies, then `tail`, in one new array: runs of copies an
 * earlier call tagged are copied, not looked up one by one. `plain`: no copy carries a
 * merged message's `layers` list.
 */
function taggedHistoryInto(
  head: readonly Message[],
  history: readonly Message[],
  tail: readonly Message[],
): { messages: Message[]; count: number; plain: boolean; records: readonly HistoryRecord[] } {
  const entries = taggedRuns.map({
    keys: history,
    compute: taggedEntry,
    valid: (entry, index) => sameAs(entry, history[index] as Message),
    startsRun: () => false,
    // The entries are read once below and never handed out.
    unshared: { values: true },
  });
  const messages = new Array<Message>(head.length + entries.length + tail.length);
  let at = 0;
  for (let index = 0; index < head.length; index++) messages[at++] = head[index] as Message;
  let plain = true;
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index] as TaggedHistory;
    messages[at++] = entry.message;
    if (entry.merged) plain = false;
  }
  for (let index = 0; index < tail.length; index++) messages[at++] = tail[index] as Message;
  return { messages, count: entries.length, plain, records: entries };
}

/** `head`, the tagged copies, then `tail`, in one new array. */
function joinTagged(
  head: readonly Message[],
  tagged: { copies: readonly Message[]; plain: boolean; carried?: CarriedRun },
  tail: readonly Message[],
): { messages: Message[]; count: number; plain: boolean; records: readonly HistoryRecord[] } {
  const { copies } = tagged;
  const messages = new Array<Message>(head.length + copies.length + tail.length);
  let at = 0;
  for (let index = 0; index < head.length; index++) messages[at++] = head[index] as Message;
  for (let index = 0; index < copies.length; index++) messages[at++] = copies[index] as Message;
  for (let index = 0; index < tail.length; index++) messages[at++] = tail[index] as Message;
  return { messages, count: copies.length, plain: tagged.plain, records: tagged.carried?.run.records ?? [] };
}

/**
 * A kept history run's blocks and their tagged copies (see {@link taggedHistoryRun}). Later
 * stages keep what they derive from a run by the run object (the report's fingerprints and
 * summaries), aligned with its blocks, so the next run takes them by position.
 */
export interface TaggedRun {
  readonly blocks: readonly ContextBlock[];
  readonly copies: readonly Message[];
  /** Where the copies that carry a merged layers list sit, ascending (most runs have none). */
  readonly mergedAt: readonly number[];
  /**
   * The records of the copies from `recordsFrom` on (those not taken from the last run),
   * aligned: later stages keep what they make for a new copy in its record, not in a memo of
   * their own (see {@link HistoryRecord}).
   */
  readonly records: readonly HistoryRecord[];
  readonly recordsFrom: number;
}

/**
 * A run and what it carried over: `run.blocks[0..same)` (and their copies) are
 * `previous.blocks[offset..offset + same)`, by pointer; the rest are new.
 */
export interface CarriedRun {
  run: TaggedRun;
  previous: TaggedRun | undefined;
  offset: number;
  same: number;
}

/** The record of `run`'s `index`-th copy if the run made that copy (not taken from the last run). */
export function newCopyRecord(run: TaggedRun, index: number): HistoryRecord | undefined {
  return index >= run.recordsFrom ? run.records[index - run.recordsFrom] : undefined;
}

/** The last kept history run (see {@link taggedHistoryRun}). */
let lastRun: TaggedRun | undefined;

/**
 * Forgets the last run's copies: a compile whose blocks may not stand for their messages (a
 * frozen history, or blocks the run memo kept by their fields) must not leave copies that a
 * later compile would take for blocks it carries over.
 */
export function forgetTaggedRun(): void {
  lastRun = undefined;
}

/**
 * The tagged copies of a run of history blocks, `blocks[start..start + count)`, the `i`-th
 * made from `messageAt(i)`. A block the last run held is the same message as it was (the
 * caller's promise: each block was made, or checked, from its message as it is now —
 * decision 067's third amendment), so its copy is taken by pointer and neither the block nor
 * the message is read; the others are tagged as {@link compose} tags them. `carried` says
 * which part was taken from the last run, and where.
 */
export function taggedHistoryRun(
  blocks: readonly ContextBlock[],
  start: number,
  count: number,
  messageAt: (index: number) => Message,
): { copies: Message[]; plain: boolean; carried: CarriedRun } {
  const runBlocks = blocks.slice(start, start + count);
  const copies = new Array<Message>(count);
  const mergedAt: number[] = [];
  let same = 0;
  let offset = 0;
  const known = lastRun;
  if (known !== undefined && count > 0) {
    const first = runBlocks[0] as ContextBlock;
    offset = known.blocks[0] === first ? 0 : known.blocks.indexOf(first);
    if (offset >= 0) {
      const limit = Math.min(count, known.blocks.length - offset);
      while (same < limit && Object.is(known.blocks[offset + same], runBlocks[same])) {
        copies[same] = known.copies[offset + same] as Message;
        same++;
      }
      for (const at of known.mergedAt) if (at >= offset && at < offset + same) mergedAt.push(at - offset);
    } else offset = 0;
  }
  const records = new Array<HistoryRecord>(count - same);
  for (let index = same; index < count; index++) {
    const entry = taggedEntry(messageAt(index));
    copies[index] = entry.message;
    records[index - same] = entry;
    if (entry.merged) mergedAt.push(index);
  }
  const plain = mergedAt.length === 0;
  const run: TaggedRun = { blocks: runBlocks, copies, mergedAt, records, recordsFrom: same };
  lastRun = run;
  return { copies, plain, carried: { run, previous: known, offset, same } };
}

function tag(message: Message, layer: string): Message {
  return {
    ...message,
    metadata: message.metadata === undefined ? { layer } : { ...message.metadata, layer },
  };
}

/**
 * Merges consecutive system messages of equal stability: the stable layers become one
 * message (a prompt-cache breakpoint still fits after it) and the volatile ones another.
 */
function mergeSystem(messages: Message[], layers: LayerRegistry, idOf: (id: string) => string): Message[] {
  const stableOf = (message: Message) => {
    const name = layerOf(message) ?? 'system';
    return layers.has(name) && layers.get(name).stable;
  };
  const runs: Message[][] = [];
  for (const message of messages) {
    const run = runs.at(-1);
    if (run !== undefined && stableOf(run[0] as Message) === stableOf(message)) run.push(message);
    else runs.push([message]);
  }
  return runs.flatMap((run) => mergeRun(run, layers, idOf));
}

function mergeRun(messages: Message[], layers: LayerRegistry, idOf: (id: string) => string): Message[] {
  if (messages.length <= 1) return messages;
  const names = messages.map((message) => layerOf(message) ?? 'system');
  const content = messages
    .map((message, index) => {
      const name = names[index] as string;
      const title = layers.has(name) ? layers.get(name).title : undefined;
      const text = typeof message.content === 'string' ? message.content : '';
      return title === undefined ? text : `## ${title}\n${text}`;
    })
    .join('\n\n');
  return [
    {
      id: idOf(`layer:${names.join('+')}`),
      role: 'system',
      content,
      metadata: { layer: names[0], layers: names },
    },
  ];
}
