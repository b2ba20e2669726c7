import { BaseMessage, BaseMessageChunk, RemoveMessage } from '@langchain/core/messages';
import { messagesDeltaReducer } from '@langchain/langgraph';
import { startsWithSame } from '../core/growing-memo.ts';

/**
 * Message id → position and message, shared by a family of arrays: a full reduction's result and
 * every array made from it by appending. Each id of each array of the family is in the index at
 * its position in that array (an append whose message would sit elsewhere starts no new family
 * member), so an id is in an array exactly when its position there holds it.
 */
type IdIndex = Map<string, { at: number; message: BaseMessage }>;

/** The family index of each array this reducer returned (none for a result with duplicate ids). */
const indexes = new WeakMap<readonly BaseMessage[], IdIndex>();

/**
 * The last replay from each base — the snapshot's messages when there are some, else the first
 * write — with the writes it applied.
 */
const tips = new WeakMap<object, { writes: readonly unknown[]; result: BaseMessage[] }>();

/**
 * LangGraph's `messagesDeltaReducer`, the same results, paid by what is new. LangGraph rebuilds a
 * delta channel on every read of a checkpoint by handing its reducer the snapshot and every write
 * since (up to `snapshotFrequency` updates), and a node's update hands it the whole list: each
 * indexed every message of the thread, and a long process session reads its thread three times a
 * turn. Here a replay whose base and first writes are those of the last replay from that base (the
 * saver's history cache shares decoded writes between reads), and an update of an array this
 * reducer returned, append the new messages to that array when none of them is a removal, a chunk
 * or an id already there — what the full reduction returns. Anything else is reduced by
 * `messagesDeltaReducer` itself. Arrays are never changed in place: every call returns a new one,
 * as LangGraph's does.
 */
export function sessionMessagesReducer(state: BaseMessage[], writes: unknown[]): BaseMessage[] {
  const first = writes[0];
  let key: object | undefined;
  let base: BaseMessage[] | undefined;
  let from = 0;
  if (indexes.has(state)) base = state;
  else if (first !== null && typeof first === 'object') {
    key = state.length > 0 ? state : first;
    const tip = tips.get(key);
    if (tip !== undefined && startsWithSame(writes, tip.writes)) {
      base = tip.result;
      from = tip.writes.length;
    }
  }
  const index = base === undefined ? undefined : indexes.get(base);
  const added = base === undefined || index === undefined ? undefined : appended(writes, from, base, index);
  let result: BaseMessage[];
  if (base !== undefined && index !== undefined && added !== undefined) {
    result = base.concat(added);
    for (let at = 0; at < added.length; at++)
      index.set((added[at] as BaseMessage).id as string, {
        at: base.length + at,
        message: added[at] as BaseMessage,
      });
    indexes.set(result, index);
  } else {
    result = messagesDeltaReducer(state, writes as never);
    const built = indexOf(result);
    if (built !== undefined) indexes.set(result, built);
  }
  if (key !== undefined) tips.set(key, { writes: writes.slice(), result });
  return result;
}

// LangGraph's pregel loop gives the messages of a write to a reducer marked so their ids.
Object.defineProperty(sessionMessagesReducer, Symbol.for('langgraph.messages_delta_reducer'), {
  value: true,
});

/** A result's family index, or undefined when an id repeats (or is missing) in it. */
function indexOf(result: readonly BaseMessage[]): IdIndex | undefined {
  const index: IdIndex = new Map();
  for (let at = 0; at < result.length; at++) {
    const id = result[at]?.id;
    if (id == null || index.has(id)) return undefined;
    index.set(id, { at, message: result[at] as BaseMessage });
  }
  return index;
}

/**
 * The messages of `writes[from..]` when each is a finished message (no chunk, no removal) with an
 * id that `base` does not hold, that no earlier one of them repeats and that the family index
 * does not place elsewhere — what a full reduction appends as they are — else undefined.
 */
function appended(
  writes: readonly unknown[],
  from: number,
  base: readonly BaseMessage[],
  index: IdIndex,
): BaseMessage[] | undefined {
  const added: BaseMessage[] = [];
  const seen = new Set<string>();
  const take = (item: unknown): boolean => {
    if (!BaseMessage.isInstance(item) || BaseMessageChunk.isInstance(item) || RemoveMessage.isInstance(item))
      return false;
    const id = item.id;
    if (id == null || seen.has(id)) return false;
    const placed = index.get(id);
    // Known to the family: in `base` at that position (a replacement), or placed elsewhere by another member.
    if (placed !== undefined && placed.at !== base.length + added.length) return false;
    seen.add(id);
    // Placed here by another member (a node's update, now replayed from its decoded write): that
    // member's message when it says the same, as the session store's head cache hands it out
    // after a write — so what is kept per message object holds from the update to every later read.
    added.push(placed !== undefined && sameMessage(placed.message, item) ? placed.message : item);
    return true;
  };
  for (let at = from; at < writes.length; at++) {
    const write = writes[at];
    if (Array.isArray(write)) {
      for (const item of write) if (!take(item)) return undefined;
    } else if (!take(write)) return undefined;
  }
  return added;
}

/** Whether two messages of one id say the same (a written message and its decoded copy). */
function sameMessage(written: BaseMessage, read: BaseMessage): boolean {
  if (written === read) return true;
  if (written.getType() !== read.getType()) return false;
  const said = (message: BaseMessage) =>
    JSON.stringify([
      message.content,
      message.name,
      message.additional_kwargs,
      (message as { tool_calls?: unknown }).tool_calls,
      (message as { tool_call_id?: unknown }).tool_call_id,
      (message as { status?: unknown }).status,
    ]);
  return said(written) === said(read);
}
