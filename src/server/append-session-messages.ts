import { CtxloomError, type Message } from '../core/index.ts';
import { MESSAGES_FILE, parseJsonText, type Sandbox } from '../workspace/index.ts';

/**
 * Appends messages to a session's `messages.json`, serialised per file by the sandbox, and
 * refuses (`conflict`) an id that is already stored — the "exactly once" of the chat route.
 * Same file format as the workspace's `appendMessages`; it reads the stored list with the
 * native `JSON.parse` (the located parser is for error messages; here the server wrote the
 * file and only needs the ids), so a chat does not re-parse a long history with positions.
 */
export async function appendSessionMessages(sandbox: Sandbox, messages: readonly Message[]): Promise<void> {
  await sandbox.update(MESSAGES_FILE, (current) => {
    const stored = current === undefined ? [] : parseStored(current);
    const ids = new Set(stored.map((message) => (message as { id?: unknown }).id));
    for (const message of messages) {
      if (ids.has(message.id)) {
        throw new CtxloomError({
          code: 'conflict',
          message: `message id "${message.id}" is already stored`,
          file: MESSAGES_FILE,
          path: message.id,
        });
      }
      ids.add(message.id);
    }
    return `${JSON.stringify([...stored, ...messages], null, 2)}\n`;
  });
}

function parseStored(text: string): unknown[] {
  const value = parseJsonText(text, MESSAGES_FILE);
  if (!Array.isArray(value)) {
    throw new CtxloomError({
      code: 'invalid-config',
      message: 'messages.json must be an array',
      file: MESSAGES_FILE,
    });
  }
  return value;
}
