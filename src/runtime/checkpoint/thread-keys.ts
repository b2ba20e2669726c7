import { createHash } from 'node:crypto';
import { CtxloomError } from '../../core/errors.ts';
import type { CheckpointTables } from './checkpoint-schema.ts';
import type { SqlExecutor, SqlParam } from './sql-driver.ts';
import { rowBytes } from './sql-driver.ts';

/**
 * Thread keys of layout 3 (decision 017). Every row of a (thread, namespace) carries one
 * integer key; there is no threads table. The key is
 * `hash31(thread_id) · 2²² + (hash22(checkpoint_ns) + probe) mod 2²²`, probe 0–3, so:
 * - a read computes the key instead of looking it up (one query, no join);
 * - all namespaces of a thread lie in one key range, read through the primary key
 *   (`deleteThread`, `list` by thread);
 * - the key stays below 2⁵³: exact as a JavaScript number, a PostgreSQL BIGINT and a SQLite
 *   INTEGER.
 * The row `(key, checkpoint_id = 0x00)` — its *name row* — holds `thread_id 0x00 checkpoint_ns`
 * in `writes` (and `data` NULL, so checkpoint reads skip it). It proves which (thread,
 * namespace) owns the key: two names whose hashes meet take the next free slot of the
 * namespace's four, and a read checks the name before trusting a key. `encodeId` never
 * yields the single byte 0x00, so name rows cannot meet a checkpoint id.
 */

/** `checkpoint_id` of a name row. */
export const NAME_ROW_ID = Uint8Array.of(0);

/** Slots a namespace may probe past its hash before a put is refused. */
const PROBES = 4;
const SLOT_BITS = 22;
const SLOTS = 2 ** SLOT_BITS;

/** A (thread, namespace) as stored in its name row, with the keys it may hold. */
export interface ThreadName {
  threadId: string;
  namespace: string;
  /** `thread_id 0x00 checkpoint_ns` in UTF-8: byte order is (thread, namespace) order. */
  bytes: Uint8Array;
  /** Candidate keys, in probe order. */
  keys: number[];
}

/** The stored name and candidate keys of a (thread, namespace). */
export function threadName(threadId: string, namespace: string): ThreadName {
  refuseNul(threadId, 'configurable.thread_id');
  refuseNul(namespace, 'configurable.checkpoint_ns');
  const [low] = threadRange(threadId);
  const home = hashBits(namespace, SLOT_BITS);
  return {
    threadId,
    namespace,
    bytes: Buffer.concat([Buffer.from(threadId, 'utf8'), NAME_ROW_ID, Buffer.from(namespace, 'utf8')]),
    keys: Array.from({ length: PROBES }, (_, probe) => low + ((home + probe) % SLOTS)),
  };
}

/** Reads a name row's `writes` back into (thread, namespace). */
export function parseThreadName(bytes: Uint8Array): { threadId: string; namespace: string } {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const split = buffer.indexOf(0);
  return {
    threadId: buffer.toString('utf8', 0, split),
    namespace: buffer.toString('utf8', split + 1),
  };
}

/** The inclusive key range holding every namespace of `threadId`. */
function threadRange(threadId: string): [number, number] {
  const low = hashBits(threadId, 31) * SLOTS;
  return [low, low + SLOTS - 1];
}

/**
 * SQL (and parameters) selecting the keys of the (thread, namespace)s a filter names — both
 * given: that one; a thread: all its namespaces (its key range, names starting `thread_id
 * 0x00`); a namespace: that namespace of every thread (names ending `0x00 checkpoint_ns`,
 * exact because the separator is a name's only NUL); neither: every one. It reads name rows
 * only, so it serves as `thread IN (…)` for reads, `deleteThread` and `prune`.
 */
export function nameRowsQuery(
  tables: CheckpointTables,
  filter: { threadId?: string | undefined; namespace?: string | undefined },
): { sql: string; params: SqlParam[] } {
  const { threadId, namespace } = filter;
  const names = `SELECT thread FROM ${tables.checkpoints} WHERE checkpoint_id = ? AND thread >= 0`;
  if (threadId !== undefined && namespace !== undefined) {
    const name = threadName(threadId, namespace);
    return {
      sql: `${names} AND thread IN (${name.keys.map(() => '?').join(', ')}) AND writes = ?`,
      params: [NAME_ROW_ID, ...name.keys, name.bytes],
    };
  }
  if (threadId !== undefined) {
    refuseNul(threadId, 'configurable.thread_id');
    const prefix = Buffer.concat([Buffer.from(threadId, 'utf8'), NAME_ROW_ID]);
    return {
      sql: `${names} AND thread BETWEEN ? AND ? AND substr(writes, 1, ?) = ?`,
      params: [NAME_ROW_ID, ...threadRange(threadId), prefix.byteLength, prefix],
    };
  }
  if (namespace !== undefined) {
    refuseNul(namespace, 'configurable.checkpoint_ns');
    const suffix = Buffer.concat([NAME_ROW_ID, Buffer.from(namespace, 'utf8')]);
    return {
      sql: `${names} AND length(writes) >= ? AND substr(writes, length(writes) - ? + 1) = ?`,
      params: [NAME_ROW_ID, suffix.byteLength, suffix.byteLength, suffix],
    };
  }
  return { sql: names, params: [NAME_ROW_ID] };
}

/** The key holding `name`, or undefined when the (thread, namespace) has no rows. */
export async function findThreadKey(
  executor: SqlExecutor,
  tables: CheckpointTables,
  name: ThreadName,
): Promise<number | undefined> {
  return (await probe(executor, tables, name)).found;
}

/**
 * The key of `name`, taking the first free slot (and writing the name row) on first use.
 * On PostgreSQL a transaction-scoped advisory lock on the name serialises concurrent
 * first puts of one (thread, namespace) from several processes; SQLite transactions are
 * exclusive already. Refuses with a `storage-error` when all four slots hold other names
 * (namespaces of threads with the same 31-bit hash whose 22-bit hashes lie within four slots).
 */
export async function threadKeyFor(
  executor: SqlExecutor,
  tables: CheckpointTables,
  postgres: boolean,
  name: ThreadName,
): Promise<number> {
  const first = await probe(executor, tables, name);
  if (first.found !== undefined) return first.found;
  if (postgres) {
    await executor.all('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [
      `${tables.checkpoints}:${Buffer.from(name.bytes).toString('base64')}`,
    ]);
  }
  for (;;) {
    const { found, free } = await probe(executor, tables, name);
    if (found !== undefined) return found;
    if (free === undefined) {
      throw new CtxloomError({
        code: 'storage-error',
        message: `no free key for thread "${name.threadId}" namespace "${name.namespace}": its ${PROBES} key slots hold other namespaces of threads with the same hash; use another checkpoint_ns or thread_id`,
        path: tables.checkpoints,
      });
    }
    // Another process may take the slot between the probe and the insert: probe again.
    await executor.run(
      `INSERT INTO ${tables.checkpoints} (thread, depth, checkpoint_id, writes) VALUES (?, 0, ?, ?) ON CONFLICT (thread, checkpoint_id) DO NOTHING`,
      [free, NAME_ROW_ID, name.bytes],
    );
  }
}

async function probe(
  executor: SqlExecutor,
  tables: CheckpointTables,
  name: ThreadName,
): Promise<{ found: number | undefined; free: number | undefined }> {
  const rows = await executor.all(
    `SELECT thread, writes FROM ${tables.checkpoints} WHERE thread IN (${name.keys.map(() => '?').join(', ')}) AND checkpoint_id = ?`,
    [...name.keys, NAME_ROW_ID],
  );
  const taken = new Set<number>();
  for (const row of rows) {
    const key = Number(row.thread);
    taken.add(key);
    const bytes = rowBytes(row, 'writes');
    if (bytes !== undefined && Buffer.from(bytes).equals(name.bytes)) return { found: key, free: undefined };
  }
  return { found: undefined, free: name.keys.find((key) => !taken.has(key)) };
}

function hashBits(text: string, bits: number): number {
  const digest = createHash('sha256').update(text, 'utf8').digest();
  return digest.readUIntBE(0, 6) % 2 ** bits;
}

function refuseNul(value: string, path: string): void {
  if (value.includes('\u0000')) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `${path} must not contain a NUL character (U+0000)`,
      path,
    });
  }
}

/**
 * Serialises every change to one (thread, namespace) across processes on PostgreSQL: a
 * transaction-scoped advisory lock on the thread key (two-int4 form, so it never meets the
 * single-bigint locks of setup, first puts and thread leases). `put`, `putWrites` and `prune`
 * take it first, so a prune never re-chains or deletes rows a put is chaining against.
 * SQLite write transactions (`BEGIN IMMEDIATE`) are exclusive already.
 */
export async function lockThreadKey(
  executor: SqlExecutor,
  postgres: boolean,
  threadKey: number,
): Promise<void> {
  if (!postgres) return;
  const high = Math.floor(threadKey / 2 ** 32);
  const low = (threadKey % 2 ** 32) | 0;
  await executor.all('SELECT pg_advisory_xact_lock(?::int4, ?::int4)', [high, low]);
}
