import { shorten } from './shorten.ts';

/**
 * The prefix of the ids ctxloom gives the layer messages it composes: `layer:system`,
 * `layer:knowledge__context`, a merged `layer:system+framework__context`. Every other message
 * of a call (history, query, steps) keeps the id its caller gave it.
 */
export const LAYER_MESSAGE_ID_PREFIX = 'layer:';

/**
 * True when `id` is in the namespace of the messages ctxloom composes ({@link
 * LAYER_MESSAGE_ID_PREFIX}). Such an id, given to a history, step or query message, would
 * repeat a layer message's id in the call's messages and `report.messages`: the session stores
 * refuse it for new messages, and a compile that meets one sends the layer under a free id
 * (warned `message-id-reserved`). `query:<hash>`, a string query's id, is not reserved: a
 * history message that has it is handled by the query's own rule (see `CompileRequest.query`).
 */
export function isReservedMessageId(id: string): boolean {
  return id.startsWith(LAYER_MESSAGE_ID_PREFIX);
}

/** Why `id` is refused where new messages enter (the stores, a turn's `messageId`, the chat route). */
export function reservedMessageIdReason(id: string): string {
  return `message id ${JSON.stringify(shorten(id, 60))} is reserved: ids starting with "${LAYER_MESSAGE_ID_PREFIX}" name the layer messages ctxloom composes`;
}

/**
 * `id` when it is not in `taken`, else the first `<id>:<n>` (n ≥ 2) that is not: how a compile
 * gives a message it adds (the query, a layer message) an id no other message of the call has.
 */
export function firstFreeId(id: string, taken: ReadonlySet<string>): string {
  if (!taken.has(id)) return id;
  let n = 2;
  while (taken.has(`${id}:${n}`)) n++;
  return `${id}:${n}`;
}
