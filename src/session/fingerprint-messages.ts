import { hashText, type Message } from '../core/index.ts';

/** `role:hash` of each message sent, so two calls can be diffed without storing their text twice. */
export function fingerprintMessages(messages: readonly Message[]): string[] {
  return messages.map((message) => `${message.role}:${hashText(JSON.stringify(message.content))}`);
}
