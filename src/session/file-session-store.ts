import { rm } from 'node:fs/promises';
import { CtxloomError, type Message } from '../core/index.ts';
import { quoteShortened, shorten } from '../core/shorten.ts';
import {
  appendMessages,
  CURATION_FILE,
  CURATION_LOG_VERSION,
  MESSAGES_FILE,
  readCurationLog,
  readMessages,
  type Sandbox,
  type Workspace,
} from '../workspace/index.ts';
import { parseJsonText } from '../workspace/json/parse-json-text.ts';
import { TURN_LOCK_NAME } from '../workspace/session/reserved-files.ts';
import { parseCurationLog } from '../workspace/session/session-store.ts';
import {
  COMPRESSION_FILE,
  EMPTY_COMPRESSION,
  formatCompressionFile,
  parseCompressionFile,
} from './compression-file.ts';
import {
  CALL_LOG_CAPACITY,
  type CallRecord,
  checkCurationEvents,
  MAX_LISTED_CALLS,
  type SessionCompression,
  type SessionState,
  type SessionStore,
} from './session-store.ts';

/** Folder of a session holding one JSON file per compiled call. */
export const CALLS_FOLDER = 'calls';
const CALLS_HEAD = `${CALLS_FOLDER}/head.json`;
/** Largest `next` of the call log's head: the one after it is still a safe integer. */
const MAX_NEXT_SEQUENCE = Number.MAX_SAFE_INTEGER - 1;

/** A call record as stored in its slot file. */
interface StoredCall {
  sequence: number;
  call: CallRecord;
}

/** Options of {@link createFileSessionStore}. */
export interface FileSessionStoreOptions {
  workspace: Workspace;
  /** Call records kept per session (≥ 1). Default {@link CALL_LOG_CAPACITY}. */
  callCapacity?: number;
}

/**
 * The workspace-files adapter of {@link SessionStore} (seed 003's layout, everything inside
 * the session folder): `messages.json` (the record), `memory.json` (curation),
 * `compression.json` (summary with its coverage, requirement TODO, artifact index) and
 * `calls/<n>.json` (the call log). Writes go through the session sandbox: atomic (temp file
 * + rename) and serialised per file within the process.
 */
export function createFileSessionStore(options: FileSessionStoreOptions): SessionStore {
  const { workspace } = options;
  const capacity = Math.max(1, Math.floor(options.callCapacity ?? CALL_LOG_CAPACITY));
  const sandboxOf = (sessionId: string) => workspace.session(sessionId);

  async function loadCompression(
    sessionId: string,
    messages: readonly Message[],
  ): Promise<SessionCompression> {
    const sandbox = sandboxOf(sessionId);
    if (!(await sandbox.exists(COMPRESSION_FILE))) return structuredClone(EMPTY_COMPRESSION);
    const ids = messages.filter((message) => message.role !== 'system').map((message) => message.id);
    return parseCompressionFile(await sandbox.readText(COMPRESSION_FILE), ids);
  }

  return {
    kind: 'files',
    async load(sessionId) {
      const sandbox = sandboxOf(sessionId);
      // The call log's head is checked too (a small file, read alongside): a turn on a session
      // whose head is corrupt fails here, before its user message is stored, not after.
      const [messages, curation] = await Promise.all([
        readMessages(sandbox),
        readCurationLog(sandbox),
        readHead(sandbox),
      ]);
      const compression = await loadCompression(sessionId, messages);
      const state: SessionState = { sessionId, messages, curation: curation.events, compression };
      return state;
    },
    // The lock of a name never written (its lock file only): appends and calls are other names.
    async holdTurn(sessionId, work) {
      let started = false;
      try {
        return await sandboxOf(sessionId).hold(TURN_LOCK_NAME, () => {
          started = true;
          return work();
        });
      } catch (error) {
        // The wait for another process's turn ran out: said as that, not as the lock file's
        // write (a name no file has). A conflict of the turn itself passes through.
        if (started || !CtxloomError.is(error, 'conflict')) throw error;
        throw turnBusy(sessionId, error);
      }
    },
    async appendMessages(sessionId, messages) {
      if (messages.length === 0) return;
      await appendMessages(sandboxOf(sessionId), messages);
    },
    async appendCuration(sessionId, events) {
      if (events.length === 0) return;
      checkCurationEvents(events);
      const sandbox = sandboxOf(sessionId);
      const stored = new Set((await readMessages(sandbox)).map((message) => message.id));
      const missing = events.filter((event) => !stored.has(event.targetMessageId));
      if (missing.length > 0) {
        throw new CtxloomError({
          code: 'not-found',
          message: `no message with id ${quoteShortened(missing.map((event) => event.targetMessageId))}; nothing was stored`,
          file: CURATION_FILE,
          path: shorten(missing[0]?.targetMessageId ?? ''),
        });
      }
      await sandbox.update(CURATION_FILE, (current) => {
        // Checked as a load checks it: a log of the wrong shape is `invalid-config` naming its line.
        const log =
          current === undefined ? { version: CURATION_LOG_VERSION, events: [] } : parseCurationLog(current);
        return `${JSON.stringify({ ...log, events: [...log.events, ...events] }, null, 2)}\n`;
      });
    },
    async saveCompression(sessionId, compression, { expectedRevision }) {
      const sandbox = sandboxOf(sessionId);
      let saved: SessionCompression | undefined;
      await sandbox.update(COMPRESSION_FILE, async (current) => {
        const ids = (await readMessages(sandbox))
          .filter((message) => message.role !== 'system')
          .map((message) => message.id);
        const stored = current === undefined ? EMPTY_COMPRESSION : parseCompressionFile(current, ids);
        if (stored.revision !== expectedRevision) {
          throw new CtxloomError({
            code: 'conflict',
            message: `compression of session "${sessionId}" is at revision ${stored.revision}, the write expected ${expectedRevision}`,
            file: COMPRESSION_FILE,
            details: { stored: stored.revision, expected: expectedRevision },
          });
        }
        saved = { ...compression, revision: stored.revision + 1 };
        const text = formatCompressionFile(saved);
        // Never store what a load refuses: a compression of the wrong shape would fail every
        // later load of the session. Checked by the parser the load uses.
        try {
          parseCompressionFile(text, ids);
        } catch (error) {
          if (!CtxloomError.is(error)) throw error;
          throw new CtxloomError({
            code: 'invalid-argument',
            message: `invalid compression: ${firstIssue(error.cause) ?? error.message}; nothing was stored`,
            file: COMPRESSION_FILE,
            ...(error.path === undefined ? {} : { path: error.path }),
            cause: error,
          });
        }
        return text;
      });
      return saved as SessionCompression;
    },
    async appendCall(sessionId, call) {
      const sandbox = sandboxOf(sessionId);
      // A ring of `capacity` slots: the head file hands out sequence numbers, a record
      // overwrites the slot of the one `capacity` calls older. Bounded without deletes.
      // A head that is not a sequence number stops the write: never a slot from a bad pointer.
      let sequence = 0;
      await sandbox.update(CALLS_HEAD, (current) => {
        sequence = current === undefined ? 0 : parseHead(current);
        return `${JSON.stringify({ next: sequence + 1 })}\n`;
      });
      const record: StoredCall = { sequence, call };
      await sandbox.writeText(callPath(sequence % capacity), `${JSON.stringify(record)}\n`);
    },
    async listCalls(sessionId, listOptions = {}) {
      const limit = Math.min(MAX_LISTED_CALLS, Math.max(1, listOptions.limit ?? CALL_LOG_CAPACITY));
      const sandbox = sandboxOf(sessionId);
      if (!(await sandbox.exists(CALLS_FOLDER))) return [];
      // The newest `limit` slots, read back from the head: a turn asking for the last call
      // reads one file, not the whole ring (the ring holds `capacity` records).
      const next = await readHead(sandbox);
      if (next !== undefined) {
        const records: CallRecord[] = [];
        for (let sequence = next - 1; sequence >= Math.max(0, next - Math.min(limit, capacity)); sequence--) {
          const path = callPath(sequence % capacity);
          if (!(await sandbox.exists(path))) continue;
          const record = parseStoredCall(await sandbox.readText(path), path);
          if (record.sequence === sequence) records.push(record.call);
        }
        return records.reverse();
      }
      const entries = (await sandbox.list(CALLS_FOLDER)).filter(
        (entry) => entry.kind === 'file' && /\/\d{6}\.json$/u.test(entry.path),
      );
      const records: StoredCall[] = [];
      for (const entry of entries) {
        records.push(parseStoredCall(await sandbox.readText(entry.path), entry.path));
      }
      return records
        .sort((a, b) => a.sequence - b.sequence)
        .slice(-limit)
        .map((record) => record.call);
    },
    async deleteSession(sessionId) {
      const sandbox = sandboxOf(sessionId);
      if ((await workspace.sandbox.stat(sessionId))?.kind !== 'directory') return;
      // The call log first, the record last: an interrupted delete leaves a session that
      // still has its messages, never calls or curation without them.
      for (const path of [CALLS_FOLDER, COMPRESSION_FILE, CURATION_FILE, MESSAGES_FILE]) {
        await rm(await sandbox.resolve(path, { forWrite: true }), { recursive: true, force: true });
      }
    },
  };
}

/** The call log head's `next`, or `undefined` when the session has no head file yet. */
async function readHead(sandbox: Sandbox): Promise<number | undefined> {
  return (await sandbox.exists(CALLS_HEAD)) ? parseHead(await sandbox.readText(CALLS_HEAD)) : undefined;
}

/**
 * The `next` sequence number of the call log's head file (`{"next": n}`). Anything else — not
 * an object, no `next`, a `next` that is not an integer from 0 to {@link MAX_NEXT_SEQUENCE} —
 * is `invalid-config` naming the file and `next`, like a corrupt `messages.json`.
 */
function parseHead(text: string): number {
  const value = parseJsonText(text, CALLS_HEAD);
  const next = isObject(value) ? value.next : undefined;
  if (typeof next === 'number' && Number.isSafeInteger(next) && next >= 0 && next <= MAX_NEXT_SEQUENCE) {
    return next;
  }
  const found = isObject(value) ? (next === undefined ? 'no "next"' : describe(next)) : describe(value);
  throw new CtxloomError({
    code: 'invalid-config',
    message: `invalid call log head: "next" must be an integer from 0 to ${MAX_NEXT_SEQUENCE}, found ${found}`,
    file: CALLS_HEAD,
    path: 'next',
  });
}

/** A call log slot (`{"sequence": n, "call": {…}}`); anything else is `invalid-config` naming the file. */
function parseStoredCall(text: string, file: string): StoredCall {
  const value = parseJsonText(text, file);
  if (!isObject(value) || !Number.isSafeInteger(value.sequence) || (value.sequence as number) < 0) {
    throw new CtxloomError({
      code: 'invalid-config',
      message: 'invalid call record: "sequence" must be a non-negative integer',
      file,
      path: 'sequence',
    });
  }
  if (!isObject(value.call)) {
    throw new CtxloomError({
      code: 'invalid-config',
      message: 'invalid call record: "call" must be an object',
      file,
      path: 'call',
    });
  }
  return value as unknown as StoredCall;
}

/** The first issue's message of a zod error (what a load's check found), if `cause` is one. */
function firstIssue(cause: unknown): string | undefined {
  const issues = (cause as { issues?: { message?: unknown }[] } | undefined)?.issues;
  const message = Array.isArray(issues) ? issues[0]?.message : undefined;
  return typeof message === 'string' ? message : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A JSON value as an error shows it: a scalar shortened (`1e999` parses to Infinity: shown as
 * such, not as `null`), an array or object by its type — stringifying a deeply nested one
 * would overflow the stack.
 */
function describe(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object' && value !== null) return 'an object';
  return shorten(typeof value === 'string' ? JSON.stringify(value) : String(value), 40);
}

function callPath(slot: number): string {
  return `${CALLS_FOLDER}/${String(slot).padStart(6, '0')}.json`;
}

/** A session's turn lock held by another process past the wait: `conflict`, nothing stored. */
function turnBusy(sessionId: string, error: CtxloomError): CtxloomError {
  const { pid, host } = (error.details ?? {}) as { pid?: number; host?: string };
  const owner = pid === undefined || pid < 0 ? '' : ` (pid ${pid}${host === undefined ? '' : ` on ${host}`})`;
  return new CtxloomError({
    code: 'conflict',
    message: `session "${shorten(sessionId)}" has a turn running in another process${owner}; nothing was stored — retry once it has answered`,
    path: 'sessionId',
    details: {
      reason: 'thread-busy',
      ...(pid === undefined || pid < 0 ? {} : { pid }),
      ...(host === undefined ? {} : { host }),
    },
    cause: error,
  });
}
