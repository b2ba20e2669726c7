import { CtxloomError } from '../core/index.ts';
import { isReservedMessageId, reservedMessageIdReason } from '../core/reserved-message-id.ts';
import type { TurnInput } from './session-engine.ts';

/**
 * The id of a turn's user message: the client's `messageId` when it gives one (not `''`), else
 * a new one from `createId`. A client id in the namespace of the layer messages a compile
 * composes (`layer:…`, see `isReservedMessageId`) is refused (`invalid-argument` naming
 * `messageId`) before the turn compiles, calls a model or stores anything.
 */
export function turnMessageId(input: Pick<TurnInput, 'messageId'>, createId: () => string): string {
  const { messageId } = input;
  if (messageId === undefined || messageId === '') return createId();
  if (isReservedMessageId(messageId)) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `${reservedMessageIdReason(messageId)}; nothing was stored`,
      path: 'messageId',
    });
  }
  return messageId;
}
