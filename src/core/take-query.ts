import type { CompileRequest } from './compile-types.ts';
import { type Message, messageText } from './message.ts';
import type { CompileWarning } from './report.ts';
import { firstFreeId } from './reserved-message-id.ts';

/**
 * Finds the query in the history so it enters once, by id and by content, and so no id
 * collision ever removes an earlier message:
 * - a history ending with a message of the query's id ends with the query: that message is
 *   taken out and sent as the query;
 * - a history ending with a user message of the query's content (any form of query: a
 *   string, or a message under another id) is the query passed twice: the history's copy is
 *   taken out (warned `query-repeated`); a string query is sent as that stored message, a
 *   message query as itself;
 * - a message with the query's id earlier in the history is another message (two "yes"
 *   answers are two turns): it stays, and the query is sent under the first free id
 *   `<id>:<n>` (n ≥ 2). A string query's id is derived from its text, so that is expected and
 *   not warned; a message query that reuses a stored id is warned `query-id-taken`.
 *
 * Mutates `history`; returns the message to send as the query when it is not `query` itself.
 */
export function takeQuery(
  history: Message[],
  query: Message,
  raw: CompileRequest['query'],
  warnings: CompileWarning[],
): Message | undefined {
  const end = takeQueryEnd(history, query, raw, warnings);
  if (end.done) return end.sent;
  return renameQuery(
    history,
    query,
    raw,
    warnings,
    history.some((message) => message.id === query.id),
  );
}

/**
 * The first part of {@link takeQuery}: takes the query off the end of `history` when it is
 * there. `done` when that decided the message to send; else {@link renameQuery} decides.
 */
export function takeQueryEnd(
  history: Message[],
  query: Message,
  raw: CompileRequest['query'],
  warnings: CompileWarning[],
): { done: true; sent: Message | undefined } | { done: false } {
  const last = history.at(-1);
  if (last?.id === query.id) return { done: true, sent: history.pop() };
  if (last !== undefined && last.role === 'user' && sameContent(last, query)) {
    warnings.push({
      code: 'query-repeated',
      message: `the query equals the last history message "${last.id}"; it is sent once`,
      messageId: last.id,
    });
    history.pop();
    if (typeof raw === 'string') return { done: true, sent: last };
  }
  return { done: false };
}

/**
 * The second part of {@link takeQuery}: the query sent under a free id when `taken` (some
 * message of `history`, after {@link takeQueryEnd}, has its id — one comparison per message,
 * which a caller may fold into a walk it makes anyway; a Set of every id would cost a long
 * history more, and the query's id is almost never taken).
 */
export function renameQuery(
  history: readonly Message[],
  query: Message,
  raw: CompileRequest['query'],
  warnings: CompileWarning[],
  taken: boolean,
): Message | undefined {
  if (!taken) return undefined;
  const sent: Message = {
    ...query,
    id: firstFreeId(query.id, new Set(history.map((message) => message.id))),
  };
  if (typeof raw !== 'string') {
    warnings.push({
      code: 'query-id-taken',
      message: `the query's id "${query.id}" is taken by the message at history position ${history.findIndex((message) => message.id === query.id)}, which stays; the query is sent as "${sent.id}"`,
      messageId: query.id,
    });
  }
  return sent;
}

/** Equal text and equal non-text parts (an image sent again is not the same message). */
function sameContent(a: Message, b: Message): boolean {
  if (typeof a.content === 'string' && typeof b.content === 'string') return a.content === b.content;
  if (messageText(a) !== messageText(b)) return false;
  return JSON.stringify(nonText(a)) === JSON.stringify(nonText(b));
}

function nonText(message: Message): unknown[] {
  return typeof message.content === 'string' ? [] : message.content.filter((part) => part.type !== 'text');
}
