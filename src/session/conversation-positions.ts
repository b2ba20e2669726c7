import { isFrozenMessage } from '../core/deep-freeze.ts';
import { growingMemo } from '../core/growing-memo.ts';
import type { Message, TokenCounter } from '../core/index.ts';

/** A message of a conversation and its position (1-based). */
export interface PositionedMessage {
  message: Message;
  position: number;
}

/** Looks up a conversation's messages by id: the first with that id. */
export interface MessagesById {
  get(id: string): PositionedMessage | undefined;
}

/**
 * What a long session's call looks up in its conversation (decision 083's amendment): each
 * message by id at its first position, and per counter the running sums of the messages'
 * costs — kept per first message for the next array of that conversation, which is read only
 * from where it stops holding the same message objects as the last. A session's conversation
 * and an agent's history grow by appending, and the turn's own message is replaced by its
 * stored copy on the next turn, so the cut, the turn's position, the recall's candidates and
 * its bound cost what the turn added, not the session's length.
 */
interface Index {
  byId: Map<string, PositionedMessage>;
  /** The array the index describes now (its messages are the index's). */
  source: readonly Message[];
  /** Where each re-reading began (`cuts[e]`: the messages epoch `e + 1` kept). */
  cuts: number[];
  /** Per counter: `sums[i]` is the cost of the first `i` messages, as far as each is frozen. */
  sums: WeakMap<TokenCounter, { sums: number[]; epoch: number }>;
  /** Values derived from the first `reach` messages, per key object ({@link derivedFromFirst}). */
  derived: WeakMap<object, { reach: number; value: unknown; epoch: number }>;
}

/** The index of `conversation`'s first message, brought up to `conversation`. */
const indexOf = growingMemo<Message, Index>({
  full: (items) =>
    added(
      { byId: new Map(), source: items, cuts: [], sums: new WeakMap(), derived: new WeakMap() },
      items,
      0,
    ),
  extend: added,
  // The messages from `kept` on are not the next array's: forget them (an id keeps its first position).
  rewind: (index, source, kept) => {
    for (let at = kept; at < source.length; at++) {
      const id = (source[at] as Message).id;
      if (index.byId.get(id)?.position === at + 1) index.byId.delete(id);
    }
    index.cuts.push(kept);
    return index;
  },
});

/** `index` with `items[from…]` added and `items` as what it describes. */
function added(index: Index, items: readonly Message[], from: number): Index {
  withPositions(index.byId, items, from);
  index.source = items;
  return index;
}

/** `byId` with each message of `items[from…]` whose id it lacks, at its position. */
function withPositions(
  byId: Map<string, PositionedMessage>,
  items: readonly Message[],
  from: number,
): Map<string, PositionedMessage> {
  for (let at = from; at < items.length; at++) {
    const message = items[at] as Message;
    if (!byId.has(message.id)) byId.set(message.id, { message, position: at + 1 });
  }
  return byId;
}

/** The fewest messages kept by the re-readings since `epoch` (Infinity: none since). */
function keptSince(index: Index, epoch: number): number {
  let kept = Number.POSITIVE_INFINITY;
  for (let at = epoch; at < index.cuts.length; at++) kept = Math.min(kept, index.cuts[at] as number);
  return kept;
}

/**
 * The conversation's messages by id, each at its first position. Exact while the index still
 * describes `conversation`; once another array of the conversation moved it on, an entry is
 * used only if `conversation` holds that very message at that position, else looked up in a
 * map of `conversation`'s own, made at the first such miss (the recall may ask about many
 * messages a conversation lacks: a scan for each cost the conversation's length).
 */
export function messagesById(conversation: readonly Message[]): MessagesById {
  const index = indexOf(conversation);
  let own: Map<string, PositionedMessage> | undefined;
  return {
    get(id) {
      if (index === undefined) return undefined;
      const entry = index.byId.get(id);
      if (index.source === conversation) return entry;
      if (entry !== undefined && conversation[entry.position - 1] === entry.message) return entry;
      own ??= withPositions(new Map(), conversation, 0);
      return own.get(id);
    },
  };
}

/** The 1-based position of the first message with `id` in `conversation`; 0 when there is none. */
export function positionIn(conversation: readonly Message[], id: string | undefined): number {
  if (id === undefined) return 0;
  return indexOf(conversation)?.byId.get(id)?.position ?? 0;
}

/**
 * The sum of `cost` over the first `count` messages of `conversation` under `counter`: running
 * sums kept per counter while the messages are frozen (a stored message's cost never changes);
 * from the first message that is not, summed at each call.
 */
export function costOfFirst(
  conversation: readonly Message[],
  count: number,
  counter: TokenCounter,
  cost: (counter: TokenCounter, message: Message) => number,
): number {
  const end = Math.min(count, conversation.length);
  const index = indexOf(conversation);
  if (index === undefined || end <= 0) return 0;
  let known = index.sums.get(counter);
  if (known === undefined) {
    known = { sums: [0], epoch: index.cuts.length };
    index.sums.set(counter, known);
  } else if (known.epoch !== index.cuts.length) {
    const kept = keptSince(index, known.epoch);
    if (known.sums.length > kept + 1) known.sums.length = kept + 1;
    known.epoch = index.cuts.length;
  }
  const { sums } = known;
  while (sums.length <= end) {
    const message = conversation[sums.length - 1] as Message;
    if (!isFrozenMessage(message)) break;
    sums.push((sums.at(-1) as number) + cost(counter, message));
  }
  const summed = Math.min(end, sums.length - 1);
  let total = sums[summed] as number;
  for (let at = summed; at < end; at++) total += cost(counter, conversation[at] as Message);
  return total;
}

/**
 * `make()`, a value that depends only on `key` (an object never changed, such as a stored
 * summary's periods) and the first `reach` messages of `conversation` — kept for the next
 * arrays of the conversation while they hold the same first `reach` messages. Shared: callers
 * must not change it.
 */
export function derivedFromFirst<T>(
  conversation: readonly Message[],
  key: object,
  reach: number,
  make: () => T,
): T {
  const index = reach <= conversation.length ? indexOf(conversation) : undefined;
  if (index === undefined) return make();
  const known = index.derived.get(key);
  if (known !== undefined && known.reach === reach && keptSince(index, known.epoch) >= reach) {
    known.epoch = index.cuts.length;
    return known.value as T;
  }
  const value = make();
  index.derived.set(key, { reach, value, epoch: index.cuts.length });
  return value;
}
