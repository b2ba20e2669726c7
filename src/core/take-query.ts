import type { CompileRequest } from './compile-types.ts';
import { type Message, messageText } from './message.ts';
import type { CompileWarning } from './report.ts';

/**
 * Finds the query in the history so it enters once: a message with the query's id at the
 * end is taken out (it is sent as the query); a string query equal to the last user
 * message is that message (warned: the caller passed it twice); a message with the query's
 * id elsewhere is removed (warned).
 */
export function takeQuery(
  history: Message[],
  query: Message,
  raw: CompileRequest['query'],
  warnings: CompileWarning[],
): Message | undefined {
  let taken: Message | undefined;
  const last = history.at(-1);
  if (last?.id === query.id) taken = history.pop();
  else if (
    typeof raw === 'string' &&
    last !== undefined &&
    last.role === 'user' &&
    messageText(last) === raw
  ) {
    warnings.push({
      code: 'query-repeated',
      message: `the query equals the last history message "${last.id}"; it is sent once`,
      messageId: last.id,
    });
    taken = history.pop();
  }
  const at = history.findIndex((message) => message.id === query.id);
  if (at >= 0) {
    warnings.push({
      code: 'query-in-history',
      message: `the query's id "${query.id}" also occurs at history position ${at}; that copy is left out`,
      messageId: query.id,
    });
    history.splice(at, 1);
  }
  return taken;
}
