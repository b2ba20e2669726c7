import type { NotebookUIMessage } from './api.ts';

/**
 * Whether `message` shows a report chip for the call `callId` (its stored context, or a
 * context-report part as the answer streamed): the one message whose view changes when that
 * call's report opens or closes. False when `callId` is undefined.
 *
 * @example
 * // Only the message holding the open call gets its id: opening a report renders it alone.
 * openCallId={holdsCall(message, openCallId) ? openCallId : undefined}
 */
export function holdsCall(message: NotebookUIMessage, callId: string | undefined): boolean {
  if (callId === undefined) return false;
  if (message.metadata?.context?.callId === callId) return true;
  return message.parts.some((part) => part.type === 'data-context-report' && part.data.callId === callId);
}
