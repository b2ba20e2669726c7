import { randomUUID } from 'node:crypto';
import { CtxloomError, type Message } from '../../core/index.ts';
import { locateJsonPath, parseJsonTree } from '../json/parse-json-tree.ts';
import {
  MEMORY_LOG_VERSION,
  type MemoryEvent,
  type MemoryLog,
  memoryLogSchema,
} from '../memory/memory-event.ts';
import type { Sandbox } from '../sandbox/create-sandbox.ts';
import { messagesFileSchema } from './messages-schema.ts';

/** Default name of a session's chat history file. */
export const MESSAGES_FILE = 'messages.json';
/** Name of a session's memory-curation audit log. */
export const MEMORY_FILE = 'memory.json';

/**
 * Parses `messages.json` text. Throws `parse-error` (bad JSON, with line/column) or
 * `invalid-config` (a message of the wrong shape, with its index path and line).
 */
export function parseMessages(text: string, file = MESSAGES_FILE): Message[] {
  const tree = parseJsonTree(text, file);
  const result = messagesFileSchema.safeParse(tree.value);
  if (result.success) return result.data as Message[];
  const issue = result.error.issues[0];
  const path = (issue?.path ?? []).map((key) => (typeof key === 'symbol' ? String(key) : key));
  const { node } = locateJsonPath(tree, path);
  throw new CtxloomError({
    code: 'invalid-config',
    message: `invalid message: ${issue?.message ?? 'unknown problem'}`,
    file,
    line: node.start.line,
    column: node.start.column,
    path: path.join('.'),
    cause: result.error,
  });
}

/** The messages of a session (empty when the file does not exist yet). */
export async function readMessages(sandbox: Sandbox, file = MESSAGES_FILE): Promise<Message[]> {
  if (!(await sandbox.exists(file))) return [];
  return parseMessages(await sandbox.readText(file), file);
}

/**
 * Appends messages to `messages.json` atomically; concurrent appends to one session are
 * serialised, so none is lost. Throws `conflict` when an id is already stored.
 */
export async function appendMessages(
  sandbox: Sandbox,
  messages: readonly Message[],
  file = MESSAGES_FILE,
): Promise<void> {
  const valid = messagesFileSchema.safeParse(messages);
  if (!valid.success) {
    const issue = valid.error.issues[0];
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `invalid message: ${issue?.message ?? 'unknown problem'}; nothing was stored`,
      file,
      path: (issue?.path ?? []).map(String).join('.'),
      cause: valid.error,
    });
  }
  await sandbox.update(file, (current) => {
    const stored = current === undefined ? [] : parseMessages(current, file);
    const ids = new Set(stored.map((message) => message.id));
    for (const message of messages) {
      if (ids.has(message.id)) {
        throw new CtxloomError({
          code: 'conflict',
          message: `message id "${message.id}" is already stored`,
          file,
          path: message.id,
        });
      }
      ids.add(message.id);
    }
    return `${JSON.stringify([...stored, ...messages], null, 2)}\n`;
  });
}

/** The session's memory-curation log (empty when there is none). */
export async function readMemoryLog(sandbox: Sandbox): Promise<MemoryLog> {
  if (!(await sandbox.exists(MEMORY_FILE))) return { version: MEMORY_LOG_VERSION, events: [] };
  return parseMemoryLog(await sandbox.readText(MEMORY_FILE));
}

function parseMemoryLog(text: string): MemoryLog {
  const tree = parseJsonTree(text, MEMORY_FILE);
  const result = memoryLogSchema.safeParse(tree.value);
  if (!result.success) {
    throw new CtxloomError({
      code: 'invalid-config',
      message: `invalid memory log: ${result.error.issues[0]?.message ?? ''}`,
      file: MEMORY_FILE,
      path: result.error.issues[0]?.path.join('.') ?? '',
      cause: result.error,
    });
  }
  return result.data;
}

/** Input of {@link recordMemoryEvent}: the event without its id and time. */
export type MemoryEventInput = Omit<MemoryEvent, 'id' | 'at'>;

/** Clock and id source of {@link recordMemoryEvent}, injectable for tests. */
export interface RecordOptions {
  now?: () => Date;
  createId?: () => string;
  messagesFile?: string;
}

/**
 * Appends a curation event (dismiss, exclude, restore) to `memory.json` after checking that
 * the target message exists (`not-found` otherwise). `messages.json` is never changed: it
 * stays the full record; the compiler shows placeholders. Returns the stored event.
 */
export async function recordMemoryEvent(
  sandbox: Sandbox,
  input: MemoryEventInput,
  options: RecordOptions = {},
): Promise<MemoryEvent> {
  const messages = await readMessages(sandbox, options.messagesFile);
  if (!messages.some((message) => message.id === input.targetMessageId)) {
    throw new CtxloomError({
      code: 'not-found',
      message: `no message with id "${input.targetMessageId}"`,
      file: options.messagesFile ?? MESSAGES_FILE,
      path: input.targetMessageId,
    });
  }
  const event: MemoryEvent = {
    ...input,
    id: (options.createId ?? randomUUID)(),
    at: (options.now?.() ?? new Date()).toISOString(),
  };
  await sandbox.update(MEMORY_FILE, (current) => {
    const log = current === undefined ? { version: MEMORY_LOG_VERSION, events: [] } : parseMemoryLog(current);
    return `${JSON.stringify({ ...log, events: [...log.events, event] }, null, 2)}\n`;
  });
  return event;
}
