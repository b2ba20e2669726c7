import { randomUUID } from 'node:crypto';
import { deepFreeze } from '../../core/deep-freeze.ts';
import { CtxloomError, type Message } from '../../core/index.ts';
import { quoteShortened, shorten } from '../../core/shorten.ts';
import {
  CURATION_LOG_VERSION,
  type CurationEvent,
  type CurationLog,
  curationLogSchema,
} from '../curation/curation-event.ts';
import { parseJsonText } from '../json/parse-json-text.ts';
import { issueLocation, parseJsonTree } from '../json/parse-json-tree.ts';
import type { Sandbox } from '../sandbox/create-sandbox.ts';
import { checkMessages, messageListSchema } from './messages-schema.ts';

/** Default name of a session's chat history file. */
export const MESSAGES_FILE = 'messages.json';
/** Name of a session's curation audit log. */
export const CURATION_FILE = 'memory.json';

/**
 * Parses `messages.json` text. Throws `parse-error` (bad JSON, with line/column) or
 * `invalid-config` (a message of the wrong shape, a part its role cannot carry, or an id used
 * twice, with its index path and line). With `refuseReservedIds` (a record about to be written,
 * not one read), an id starting with `layer:` is `invalid-config` too (see `checkMessages`).
 */
export function parseMessages(
  text: string,
  file = MESSAGES_FILE,
  options: { refuseReservedIds?: boolean } = {},
): Message[] {
  // Positions are found only for a file that fails validation: a session's record is read
  // every turn, and the walk for positions grew with it (decision 040's turn-time bench).
  const result = checkMessages(parseJsonText(text, file), {
    uniqueIds: true,
    refuseReservedIds: options.refuseReservedIds === true,
  });
  if (result.success) return result.data as Message[];
  throw new CtxloomError({
    code: 'invalid-config',
    message: `invalid message: ${result.issue.message}`,
    file,
    ...issueLocation(parseJsonTree(text, file), result.issue.path),
    ...(result.error === undefined ? {} : { cause: result.error }),
  });
}

/** A messages file's text and what it parses to; `canonical` when ctxloom wrote that text. */
interface ParsedRecord {
  text: string;
  messages: readonly Message[];
  ids: ReadonlySet<string>;
  canonical: boolean;
}

/**
 * The last parse of each sandbox's messages files (decision 061). A session's record is read
 * by every load and every append, several times a turn; the sandbox hands back the same string
 * for the same bytes, so while the text is the one parsed here, the parse (and its validation)
 * is reused instead of growing with the session. Messages are frozen: every reader gets its
 * own array of them, and none can change what the next reader sees.
 */
const parsedRecords = new WeakMap<Sandbox, Map<string, ParsedRecord>>();

function recordsOf(sandbox: Sandbox): Map<string, ParsedRecord> {
  let records = parsedRecords.get(sandbox);
  if (records === undefined) {
    records = new Map();
    parsedRecords.set(sandbox, records);
  }
  return records;
}

function remember(
  sandbox: Sandbox,
  file: string,
  text: string,
  messages: readonly Message[],
  canonical: boolean,
): ParsedRecord {
  for (const message of messages) deepFreeze(message);
  const record = { text, messages, ids: new Set(messages.map((message) => message.id)), canonical };
  recordsOf(sandbox).set(file, record);
  return record;
}

/** The record as parsed from `text`, reusing the last parse while the text is the same. */
function parsedRecord(sandbox: Sandbox, file: string, text: string): ParsedRecord {
  const known = recordsOf(sandbox).get(file);
  if (known !== undefined && known.text === text) return known;
  return remember(sandbox, file, text, parseMessages(text, file), false);
}

/** The messages of a session (empty when the file does not exist yet). */
export async function readMessages(sandbox: Sandbox, file = MESSAGES_FILE): Promise<Message[]> {
  if (!(await sandbox.exists(file))) return [];
  return [...parsedRecord(sandbox, file, await sandbox.readText(file)).messages];
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
  // Repeated ids are the append's to refuse (`conflict`), with those already stored.
  const valid = checkMessages(messages, { uniqueIds: false, refuseReservedIds: true });
  if (!valid.success) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `invalid message: ${valid.issue.message}; nothing was stored`,
      file,
      path: valid.issue.path.join('.'),
      ...(valid.error === undefined ? {} : { cause: valid.error }),
    });
  }
  let appended: readonly Message[] | undefined;
  const written = await sandbox.update(file, (current) => {
    const known = recordsOf(sandbox).get(file);
    const same = current !== undefined && known?.text === current ? known : undefined;
    // A text this process did not parse or write (another program changed the file, or no
    // load came first) is checked in full, as a load checks it: an append must not carry an
    // invalid record forward as if it had been checked.
    const stored = current === undefined ? [] : (same?.messages ?? parseMessages(current, file));
    const storedIds = same?.ids ?? new Set(stored.map((entry) => entry.id));
    const ids = new Set<string>();
    for (const message of messages) {
      if (ids.has(message.id) || storedIds.has(message.id)) {
        throw new CtxloomError({
          code: 'conflict',
          message: `message id ${JSON.stringify(shorten(message.id))} is already stored`,
          file,
          path: shorten(message.id),
        });
      }
      ids.add(message.id);
    }
    // The text ctxloom wrote ends with its last message and `\n]\n`: the new messages are
    // joined on as `JSON.stringify` of the whole list would write them, without writing the
    // stored ones again (a turn's two appends did, the cost growing with the session).
    const pieces = messages.map((message) => JSON.stringify(message, null, 2).replaceAll('\n', '\n  '));
    const added = messageListSchema.parse(JSON.parse(`[${pieces.join(',')}]`)) as Message[];
    appended = [...stored, ...added];
    if (same?.canonical === true && stored.length > 0 && current?.endsWith('\n]\n') === true) {
      return { keep: current.length - 3, insert: `,\n  ${pieces.join(',\n  ')}\n]\n` };
    }
    return `${JSON.stringify([...stored, ...messages], null, 2)}\n`;
  });
  if (appended !== undefined) remember(sandbox, file, written, appended, true);
}

/** The session's curation log (empty when there is none). */
export async function readCurationLog(sandbox: Sandbox): Promise<CurationLog> {
  if (!(await sandbox.exists(CURATION_FILE))) return { version: CURATION_LOG_VERSION, events: [] };
  return parseCurationLog(await sandbox.readText(CURATION_FILE));
}

/** Parses `memory.json` text; throws `parse-error` (with line/column) or `invalid-config`. */
export function parseCurationLog(text: string, file = CURATION_FILE): CurationLog {
  const tree = parseJsonTree(text, file);
  const result = curationLogSchema.safeParse(tree.value);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new CtxloomError({
      code: 'invalid-config',
      message: `invalid curation log: ${issue?.message ?? 'unknown problem'}`,
      file,
      ...issueLocation(tree, issue?.path ?? []),
      cause: result.error,
    });
  }
  return result.data;
}

/** Input of {@link recordCurationEvent}: the event without its id and time. */
export type CurationEventInput = Omit<CurationEvent, 'id' | 'at'>;

/** Clock and id source of {@link recordCurationEvent}, injectable for tests. */
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
export async function recordCurationEvent(
  sandbox: Sandbox,
  input: CurationEventInput,
  options: RecordOptions = {},
): Promise<CurationEvent> {
  const [event] = await recordCurationEvents(sandbox, [input], options);
  return event as CurationEvent;
}

/**
 * Appends a batch of curation events to `memory.json` all or nothing: every target message is
 * checked first — `not-found` naming every unknown id (`details.missing`) and storing nothing —
 * then the whole batch is appended in one atomic write. Returns the stored events.
 */
export async function recordCurationEvents(
  sandbox: Sandbox,
  inputs: readonly CurationEventInput[],
  options: RecordOptions = {},
): Promise<CurationEvent[]> {
  const messages = await readMessages(sandbox, options.messagesFile);
  const known = new Set(messages.map((message) => message.id));
  const missing = [...new Set(inputs.map((input) => input.targetMessageId))].filter((id) => !known.has(id));
  if (missing.length > 0) {
    throw new CtxloomError({
      code: 'not-found',
      message: `no message with id ${quoteShortened(missing)}; nothing was stored`,
      file: options.messagesFile ?? MESSAGES_FILE,
      path: shorten(missing[0] as string),
      details: { missing: missing.map((id) => shorten(id)) },
    });
  }
  const createId = options.createId ?? randomUUID;
  const at = (options.now?.() ?? new Date()).toISOString();
  const events: CurationEvent[] = inputs.map((input) => ({ ...input, id: createId(), at }));
  await sandbox.update(CURATION_FILE, (current) => {
    const log =
      current === undefined ? { version: CURATION_LOG_VERSION, events: [] } : parseCurationLog(current);
    return `${JSON.stringify({ ...log, events: [...log.events, ...events] }, null, 2)}\n`;
  });
  return events;
}
