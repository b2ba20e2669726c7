import { isErrorResult, type Message, messageParts, partText } from './message.ts';
import { assertMessageShape } from './request-issue.ts';
import { isReservedMessageId, LAYER_MESSAGE_ID_PREFIX } from './reserved-message-id.ts';
import { createRunMemo, type RunMemo } from './run-memo.ts';
import { isTextCached, messageCostOf, type TokenCounter } from './tokens.ts';

/** The id of a message's block in the `history` layer. */
export function historyBlockId(message: Message): string {
  return `history:${message.id}`;
}

/** The start of the block id of a message whose id is reserved (see `isReservedMessageId`). */
const RESERVED_BLOCK_ID_PREFIX = `history:${LAYER_MESSAGE_ID_PREFIX}`;

/** What a message costs and says (see {@link measureMessage}). */
export interface MessageMeasure {
  /** The text a tokenizer sees (parts joined by newlines). */
  text: string;
  /** Tokens of the message as sent: content plus per-message overhead (no request overhead). */
  tokens: number;
  /** True when the message carries a failed tool result. */
  error: boolean;
  /** `history:<message id>`, the block id. */
  blockId: string;
}

interface MemoEntry extends MessageMeasure {
  content: Message['content'];
  role: Message['role'];
  name: string | undefined;
  /**
   * Not measured, but checked with the rest: a history block made from this measure then
   * stands for the message's content, role, name and metadata as they are (compose takes the
   * tagged copy of an unchanged block by pointer, decision 067's third amendment).
   */
  metadata: Message['metadata'];
}

/** Per counter: its measures by message, and its per-message cost function. */
interface CounterMemo {
  byMessage: WeakMap<Message, MemoEntry>;
  cost: (message: Message) => number;
  /** Plain-text messages skip the memo (the counter's own cache makes a recount a lookup). */
  plainFromCache: boolean;
  /** The last lists measured (a recompile measures the same messages, plus the new ones). */
  runs: RunMemo<Message, MemoEntry>;
  /** The last list measured from each first message, with the values each check compares. */
  lists: WeakMap<Message, CheckedList>;
}

/**
 * A list of messages as last measured, position by position: the message, its entry and the
 * content, role, name and metadata the entry was checked against, side by side in arrays, so
 * the next check of an unchanged message reads the message alone (not its entry as well).
 */
interface CheckedList {
  messages: Message[];
  entries: MemoEntry[];
  contents: Message['content'][];
  roles: Message['role'][];
  names: (string | undefined)[];
  metadatas: Message['metadata'][];
  /** How many of `contents` are parts arrays (kept with the list: the check compares pointers only). */
  partsCount: number;
  /** How many of the messages have a reserved id (`isReservedMessageId`), kept as `partsCount` is. */
  reservedCount: number;
  /** The measures the last check of this list returned (`entries`, as a copy nobody changes). */
  lastMeasures?: readonly MessageMeasure[];
  /**
   * How many messages of the list have each id, made when a check first asks for an id and
   * kept up with the list: whether a message has the query's id is one lookup, not a string
   * comparison per message (each a read of an id string not in the CPU cache). Ids are taken
   * as they were when a message was measured, as its block's id is.
   */
  idCounts: Map<string, number> | undefined;
}

const memo = new WeakMap<TokenCounter, CounterMemo>();

/**
 * Measures a message once per counter: a recompile over the same message objects does no
 * tokenising or text building for them. Messages are treated as immutable values — the memo
 * is reused only while `content` (the same string or the same parts array), `role`, `name`
 * and `metadata` are unchanged; replace a message (or its parts array) to change it. With a counter
 * from `withTokenCache`, plain-text messages skip the memo: their text is that cache's key,
 * so a recompile looks the count up there.
 */
export function measureMessage(message: Message, counter: TokenCounter): MessageMeasure {
  return measureWith(memoOf(counter), message);
}

function memoOf(counter: TokenCounter): CounterMemo {
  let entry = memo.get(counter);
  if (entry === undefined) {
    entry = {
      byMessage: new WeakMap(),
      cost: messageCostOf(counter),
      plainFromCache: isTextCached(counter),
      runs: createRunMemo(),
      lists: new WeakMap(),
    };
    memo.set(counter, entry);
  }
  return entry;
}

function measureWith({ byMessage, cost, plainFromCache }: CounterMemo, message: Message): MessageMeasure {
  // With a caching counter, a plain-text message is measured from the counter's cache (its
  // text is the key) without a memo entry: a WeakMap insert per message costs a cold compile
  // more than the lookups it would save a warm one.
  if (plainFromCache && typeof message.content === 'string') {
    const { id, role } = message;
    assertMessageShape(message, id, role, undefined);
    return { text: message.content, tokens: cost(message), error: false, blockId: `history:${id}` };
  }
  const cached = byMessage.get(message);
  if (cached !== undefined && measuresMessage(cached, message)) return cached;
  const entry = newEntry(cost, message);
  byMessage.set(message, entry);
  return entry;
}

/** True while `entry` still describes `message` (its content, role, name and metadata are the same values). */
function measuresMessage(entry: MemoEntry, message: Message): boolean {
  return (
    entry.content === message.content &&
    entry.role === message.role &&
    entry.name === message.name &&
    entry.metadata === message.metadata
  );
}

/**
 * `message` as `measure` measured it: the message itself while the measure still describes it
 * (its content, role, name and metadata are the same values), else a copy with the values it
 * had then. A frozen history's preparation is reused unchecked (a tool loop's steps): a message
 * changed in place since (against the {@link Message} contract) is sent as it was counted.
 */
export function asMeasured(message: Message, measure: MessageMeasure): Message {
  const entry = measure as Partial<MemoEntry>;
  if (entry.content === undefined || measuresMessage(entry as MemoEntry, message)) return message;
  const { name: _name, metadata: _metadata, ...rest } = message;
  return {
    ...rest,
    role: entry.role as Message['role'],
    content: entry.content,
    ...(entry.name === undefined ? {} : { name: entry.name }),
    ...(entry.metadata === undefined ? {} : { metadata: entry.metadata }),
  } as Message;
}

function newEntry(cost: (message: Message) => number, message: Message): MemoEntry {
  return entryOf(message, cost(message));
}

/** The entry of `message`, whose cost as sent is `tokens`. */
function entryOf(message: Message, tokens: number): MemoEntry {
  const parts = typeof message.content === 'string' ? undefined : messageParts(message);
  // Checked where each new message is read anyway: a memo entry is made once per message.
  const { id, role } = message;
  assertMessageShape(message, id, role, parts);
  const entry: MemoEntry = {
    text: parts === undefined ? (message.content as string) : parts.map(partText).join('\n'),
    tokens,
    error: parts?.some(isErrorResult) === true,
    blockId: `history:${id}`,
    content: message.content,
    role,
    name: message.name,
    metadata: message.metadata,
  };
  return entry;
}

/**
 * Every message's measure (see {@link measureMessage}), in order. The runs of messages an
 * earlier list held in the same order (a recompile after new messages were appended) are
 * copied from it by pointer, each checked to be the same content, role, name and metadata: only the
 * new messages are measured, without a lookup per message.
 */
export function measureMessages(messages: readonly Message[], counter: TokenCounter): MessageMeasure[] {
  return measureAndScan(messages, counter, undefined).measures;
}

/** What {@link measureAndScan} saw while it measured. */
export interface MeasureScan {
  measures: MessageMeasure[];
  /** Whether some message's content is a parts array (else no message has tool parts). */
  parts: boolean;
  /** Whether some message has the id asked for (false when none was asked). */
  idTaken: boolean;
  /** Whether some message's id is reserved (`isReservedMessageId`): rare, so no list of them. */
  reserved: boolean;
  /**
   * The measures the last check of the same list returned, and how many of its first ones are
   * `measures`' first ones (the same objects, the messages unchanged); at the next index both
   * have, they differ (a message changed or replaced gets a new entry). Lets a later stage skip
   * its own walk comparing the two.
   */
  carried?: { previous: readonly MessageMeasure[]; same: number };
}

/**
 * {@link measureMessages}, also noting whether any message has parts and whether any has the
 * id `id`: the same pass reads each message once, instead of one more walk over a long
 * history per question (each read of a message not in the CPU cache is a miss).
 */
export function measureAndScan(
  messages: readonly Message[],
  counter: TokenCounter,
  id: string | undefined,
): MeasureScan {
  const counterMemo = memoOf(counter);
  const first = messages[0];
  const list = first === undefined ? undefined : counterMemo.lists.get(first);
  if (list !== undefined) return measureChecked(counterMemo, list, messages, id);
  if (counterMemo.runs.computed === 0 && first !== undefined) return measureFresh(counterMemo, messages, id);
  let parts = false;
  let idTaken = false;
  let reservedCount = 0;
  const count = messages.length;
  const checked: CheckedList = {
    messages: messages.slice(),
    entries: [],
    contents: new Array(count),
    roles: new Array(count),
    names: new Array(count),
    metadatas: new Array(count),
    partsCount: 0,
    reservedCount: 0,
    idCounts: undefined,
  };
  // Each check's values noted from the message just read (it is in the CPU cache).
  const note = (message: Message, index: number) => {
    if (typeof message.content !== 'string') checked.partsCount++;
    checked.contents[index] = message.content;
    checked.roles[index] = message.role;
    checked.names[index] = message.name;
    checked.metadatas[index] = message.metadata;
  };
  const measures = counterMemo.runs.map({
    keys: messages,
    // Plain texts get an entry of their own here (the memo keeps it for the next list).
    compute: (message, index) => {
      if (typeof message.content !== 'string') parts = true;
      const messageId = message.id;
      if (messageId === id) idTaken = true;
      if (isReservedMessageId(messageId)) reservedCount++;
      note(message, index);
      return counterMemo.plainFromCache && typeof message.content === 'string'
        ? newEntry(counterMemo.cost, message)
        : (measureWith(counterMemo, message) as MemoEntry);
    },
    valid: (entry, index) => {
      const message = messages[index] as Message;
      if (!measuresMessage(entry, message)) return false;
      // Checked equal above: the entry's content is the message's.
      if (typeof entry.content !== 'string') parts = true;
      const messageId = message.id;
      if (messageId === id) idTaken = true;
      if (isReservedMessageId(messageId)) reservedCount++;
      note(message, index);
      return true;
    },
    startsRun: () => false,
    unshared: { values: true },
  });
  if (first !== undefined) {
    checked.entries = measures.slice();
    checked.reservedCount = reservedCount;
    counterMemo.lists.set(first, checked);
  }
  return { measures, parts, idTaken, reserved: reservedCount > 0 };
}

/**
 * {@link measureAndScan} for a counter that has measured no list yet (a cold compile): plain
 * loops, no run to look for per message and no closure made per call. The list is remembered
 * as the run memo and the checked lists would have it, so later calls find it the same way.
 */
function measureFresh(
  counterMemo: CounterMemo,
  messages: readonly Message[],
  id: string | undefined,
): MeasureScan {
  const count = messages.length;
  const measures = new Array<MemoEntry>(count);
  const contents = new Array<Message['content']>(count);
  const roles = new Array<Message['role']>(count);
  const names = new Array<string | undefined>(count);
  const metadatas = new Array<Message['metadata']>(count);
  const { cost, plainFromCache } = counterMemo;
  // Counted first, in a loop that does nothing else (the tokenizer's tables stay in the CPU
  // cache), then the entries are made.
  const tokens = new Float64Array(count);
  if (plainFromCache) {
    for (let index = 0; index < count; index++) {
      const message = messages[index] as Message;
      if (typeof message.content === 'string') tokens[index] = cost(message);
    }
  }
  let partsCount = 0;
  let reservedCount = 0;
  let idTaken = false;
  for (let index = 0; index < count; index++) {
    const message = messages[index] as Message;
    const content = message.content;
    if (typeof content !== 'string') partsCount++;
    const messageId = message.id;
    if (messageId === id) idTaken = true;
    if (isReservedMessageId(messageId)) reservedCount++;
    contents[index] = content;
    roles[index] = message.role;
    names[index] = message.name;
    metadatas[index] = message.metadata;
    measures[index] =
      plainFromCache && typeof content === 'string'
        ? entryOf(message, tokens[index] as number)
        : (measureWith(counterMemo, message) as MemoEntry);
  }
  // Two copies: the checked list is updated in place by later calls, the run memo's is not.
  counterMemo.runs.remember(messages.slice(), measures);
  counterMemo.lists.set(messages[0] as Message, {
    messages: messages.slice(),
    entries: measures.slice(),
    contents,
    roles,
    names,
    metadatas,
    partsCount,
    reservedCount,
    idCounts: undefined,
  });
  return { measures, parts: partsCount > 0, idTaken, reserved: reservedCount > 0 };
}

/**
 * {@link measureAndScan} over a list whose first message this counter measured before: each
 * message still at its place, with the content, role, name and metadata it had then, keeps
 * its entry (read from the list, not from the entry); the list is updated in place from the
 * first message that differs, and the messages from there on are measured as before.
 */
function measureChecked(
  counterMemo: CounterMemo,
  list: CheckedList,
  messages: readonly Message[],
  id: string | undefined,
): MeasureScan {
  const count = messages.length;
  const limit = Math.min(count, list.messages.length);
  let same = 0;
  // Pointers only: the message is read, not its content or id (whether a content is a parts
  // array, and which ids the list has, are kept with the list).
  for (; same < limit; same++) {
    const message = messages[same] as Message;
    if (
      !Object.is(message, list.messages[same]) ||
      !Object.is(message.content, list.contents[same]) ||
      !Object.is(message.role, list.roles[same]) ||
      !Object.is(message.name, list.names[same]) ||
      !Object.is(message.metadata, list.metadatas[same])
    )
      break;
  }
  // The unchanged messages' entries in one copy (not one store per message).
  const measures: MessageMeasure[] = list.entries.slice(0, same);
  const { idCounts } = list;
  for (let index = same; index < list.messages.length; index++) {
    if (typeof list.contents[index] !== 'string') list.partsCount--;
    const { blockId } = list.entries[index] as MemoEntry;
    if (blockId.startsWith(RESERVED_BLOCK_ID_PREFIX)) list.reservedCount--;
    if (idCounts !== undefined) uncount(idCounts, blockId);
  }
  list.messages.length = same;
  list.entries.length = same;
  list.contents.length = same;
  list.roles.length = same;
  list.names.length = same;
  list.metadatas.length = same;
  for (let index = same; index < count; index++) {
    const message = messages[index] as Message;
    const content = message.content;
    if (typeof content !== 'string') list.partsCount++;
    const entry =
      counterMemo.plainFromCache && typeof content === 'string'
        ? newEntry(counterMemo.cost, message)
        : (measureWith(counterMemo, message) as MemoEntry);
    measures.push(entry);
    if (entry.blockId.startsWith(RESERVED_BLOCK_ID_PREFIX)) list.reservedCount++;
    if (idCounts !== undefined) idCounts.set(entry.blockId, (idCounts.get(entry.blockId) ?? 0) + 1);
    list.messages.push(message);
    list.entries.push(entry);
    list.contents.push(content);
    list.roles.push(message.role);
    list.names.push(message.name);
    list.metadatas.push(message.metadata);
  }
  const previous = list.lastMeasures;
  list.lastMeasures = measures;
  let idTaken = false;
  if (id !== undefined) {
    let counts = idCounts;
    if (counts === undefined) {
      counts = new Map();
      for (const entry of list.entries) counts.set(entry.blockId, (counts.get(entry.blockId) ?? 0) + 1);
      list.idCounts = counts;
    }
    idTaken = counts.has(historyBlockId({ id } as Message));
  }
  const scan: MeasureScan = {
    measures,
    parts: list.partsCount > 0,
    idTaken,
    reserved: list.reservedCount > 0,
  };
  if (previous !== undefined) scan.carried = { previous, same };
  return scan;
}

function uncount(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 0) - 1;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}
