import { type CompressScope, parseManualCompressCommand } from '../compression/index.ts';
import type { Message } from '../core/index.ts';

/** A chat input that is a command for ctxloom, not text for the model. */
export type SessionCommand = { type: 'compress'; scope: CompressScope };

/**
 * Recognises the commands typed in a chat: exactly `/compress`, `/compress requirement` and
 * `/compress artifacts` (seed 004 §10.1). Prose that mentions compressing is not a command.
 */
export function parseSessionCommand(text: string): SessionCommand | undefined {
  return parseManualCompressCommand(text);
}

/**
 * True for the stored command and its answer (`metadata.command`): they are shown in the
 * chat with a marker, never sent to the model, never summarised.
 */
export function isCommandMessage(message: Message): boolean {
  return message.metadata?.command !== undefined;
}
