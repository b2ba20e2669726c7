import { CtxloomError } from '../../core/errors.ts';
import { type ChainCache, sameBytes } from './chain-cache.ts';
import { type ChainText, dictionaryOf, extendChain } from './chain-text.ts';
import {
  type CheckpointRecord,
  decodeStoredRecord,
  needsParent,
  recordFromStored,
  type StoredHeader,
  taskIdsOf,
} from './checkpoint-record.ts';
import { chainQuery, rowKey, type StoredRow, storedRowOf } from './checkpoint-rows.ts';
import { encodeId } from './id-codec.ts';
import {
  chainedPiece,
  type DecodedRecord,
  decodeBodyAt,
  dictionaryKind,
  inflatePath,
  isChained,
  recordCount,
} from './record-codec.ts';
import type { SaverContext } from './saver-context.ts';
import type { SqlExecutor, SqlParam } from './sql-driver.ts';
import {
  decodeWritesRecord,
  regularWrites,
  type StoredWrite,
  writesBody,
  writesOf,
} from './writes-record.ts';

/**
 * Records between two self-contained ones: bounds the rows a cold read decodes. A restart
 * costs ~450 B where a chained record costs ~30; 128 halves what 64 spent on them, and a
 * cold read still inflates a chain in one bulk call (decision 039).
 */
export const MAX_CHAIN_DEPTH = 128;
/** A parent's text extended by the writes a child saw (`body`: their writes-record body). */
function withWrites(text: ChainText, writes: readonly StoredWrite[], body: Uint8Array): ChainText {
  return extendChain(
    text,
    writes.map((write) => write.bytes),
    writes.map((write) => Buffer.from(write.channel)),
    [body],
  );
}

/** A piece of a run {@link ChainReader.prefetch} inflates in one call. */
interface RunItem {
  row: StoredRow;
  kind: 'record' | 'writes';
  piece: { raw: Uint8Array; crc: number; count: number };
}

/** A decoded checkpoint row. */
export interface ChainRecord {
  record: CheckpointRecord;
  /** The chain's text up to and including this record. */
  text: ChainText;
}

/** A row's decoded record with its chain text: `prefix` (its chain before it) plus its own. */
export function chainRecordOf(
  row: StoredRow,
  prefix: ChainText | undefined,
  record: CheckpointRecord,
): ChainRecord {
  return {
    record,
    text: extendChain(
      prefix,
      [...record.values.values()].map(([, bytes]) => bytes),
      [Buffer.from(row.checkpointId), record.headerBytes, record.metadata],
      [record.body],
    ),
  };
}

/**
 * Decodes checkpoint rows and their pending writes. A chained record is deflated against
 * its chain's text ({@link ChainText}): its parent's, extended by the parent's first n
 * regular writes (n stored with the record; regular writes are append-only, so later writes
 * never change it). A row's own text adds its id, header and metadata to the headers and
 * its stored values to the values; its writes are deflated against that. Missing ancestors are read in one recursive query,
 * at most {@link MAX_CHAIN_DEPTH} rows.
 */
export class ChainReader {
  readonly #context: SaverContext;
  readonly #executor: SqlExecutor;
  readonly #cache: ChainCache | undefined;
  readonly #rows = new Map<string, StoredRow>();
  readonly #records = new Map<string, ChainRecord>();
  readonly #writes = new Map<string, StoredWrite[]>();
  /** Decoded writes shared with this reader's forks, keyed by row and checked against the stored bytes. */
  readonly #replayed: Map<string, { data: Uint8Array; value: StoredWrite[] }>;

  constructor(
    context: SaverContext,
    executor: SqlExecutor,
    cache?: ChainCache,
    replayed?: Map<string, { data: Uint8Array; value: StoredWrite[] }>,
  ) {
    this.#context = context;
    this.#executor = executor;
    this.#cache = cache;
    this.#replayed = replayed ?? new Map();
  }

  /** Makes rows known (a row put again replaces the one known before). */
  add(...rows: StoredRow[]): void {
    for (const row of rows) {
      const key = rowKey(row.threadKey, row.checkpointId);
      const known = this.#rows.get(key);
      if (known !== undefined && sameBytes(known.data, row.data) && sameBytes(known.writes, row.writes))
        continue;
      this.#rows.set(key, row);
      this.#records.delete(key);
      this.#writes.delete(key);
    }
  }

  /** A known row, if any. */
  row(threadKey: number, checkpointId: string): StoredRow | undefined {
    return this.#rows.get(rowKey(threadKey, checkpointId));
  }

  /** Decodes a row's checkpoint record (the row must hold one). */
  async record(row: StoredRow): Promise<ChainRecord> {
    const key = rowKey(row.threadKey, row.checkpointId);
    const data = row.data;
    if (data === undefined) throw missing(row.checkpointId, 'checkpoint record');
    const known = this.#records.get(key) ?? this.#cache?.get(key, data);
    if (known !== undefined) {
      this.#records.set(key, known);
      return known;
    }
    const prefix = isChained(data) ? await this.#parentText(row, recordCount(data)) : undefined;
    const stored = decodeStoredRecord(
      data,
      prefix === undefined ? undefined : dictionaryOf(prefix, dictionaryKind(data)),
    );
    return this.#complete(row, prefix, stored);
  }

  /** A row's record from its stored form (its header patched onto its parent's when stored so), remembered. */
  async #complete(
    row: StoredRow,
    prefix: ChainText | undefined,
    stored: DecodedRecord<StoredHeader>,
  ): Promise<ChainRecord> {
    let parent: { id: string; record: CheckpointRecord } | undefined;
    if (needsParent(stored)) {
      const parentRow = await this.#parentRow(row);
      parent = { id: parentRow.checkpointId, record: (await this.record(parentRow)).record };
    }
    const decoded = chainRecordOf(row, prefix, recordFromStored(stored, parent));
    this.remember(row, decoded);
    return decoded;
  }

  /** Records what a row decodes to (a row just encoded: no need to inflate it again). */
  remember(row: StoredRow, decoded: ChainRecord, writes?: StoredWrite[]): void {
    const key = rowKey(row.threadKey, row.checkpointId);
    if (row.data !== undefined) {
      this.#records.set(key, decoded);
      this.#cache?.set(key, row.data, decoded);
    }
    if (writes !== undefined) this.rememberWrites(row, writes);
  }

  /** Records what a row's writes decode to. */
  rememberWrites(row: StoredRow, writes: StoredWrite[]): void {
    const key = rowKey(row.threadKey, row.checkpointId);
    this.#writes.set(key, writes);
    if (row.writes !== undefined) this.#cache?.setWrites(key, row.writes, writes);
  }

  /** The decoded writes of a row, decoded by this reader's family in a replay (see {@link fork}). */
  async replayedWrites(row: StoredRow): Promise<StoredWrite[]> {
    const key = rowKey(row.threadKey, row.checkpointId);
    const known = this.#replayed.get(key);
    if (known !== undefined && row.writes !== undefined && sameBytes(known.data, row.writes))
      return known.value;
    const writes = await this.writes(row);
    if (row.writes !== undefined) this.#replayed.set(key, { data: row.writes, value: writes });
    return writes;
  }

  /** Decodes a row's pending writes, in log order (empty when none). */
  async writes(row: StoredRow): Promise<StoredWrite[]> {
    const key = rowKey(row.threadKey, row.checkpointId);
    const known =
      this.#writes.get(key) ??
      (row.writes === undefined ? undefined : this.#cache?.getWrites(key, row.writes));
    if (known !== undefined) {
      this.#writes.set(key, known);
      return known;
    }
    let writes: StoredWrite[] = [];
    if (row.writes !== undefined) {
      const own = row.data === undefined ? undefined : await this.record(row);
      const dictionary =
        isChained(row.writes) && own !== undefined
          ? dictionaryOf(own.text, dictionaryKind(row.writes))
          : undefined;
      const ids = own === undefined ? undefined : taskIdsOf(row.checkpointId, own.record);
      writes = decodeWritesRecord(row.writes, dictionary, ids);
    }
    this.rememberWrites(row, writes);
    return writes;
  }

  /** The chain text a child of `parent` starts from when it includes the parent's first `count` regular writes. */
  async childText(parent: StoredRow, count: number): Promise<ChainText> {
    const { text, record } = await this.record(parent);
    if (count === 0) return text;
    const writes = regularWrites(await this.writes(parent), count);
    return withWrites(text, writes, writesBody(writes, taskIdsOf(parent.checkpointId, record)));
  }

  /**
   * Decodes the records and writes of `rows` — one path, oldest first, each row the parent of
   * the next — in as few zlib calls as it can: format-5 records and writes are pieces of one
   * DEFLATE stream along their path (`record-codec.ts`), so a run of them inflates in one call
   * and each piece is checked by its CRC (a replay of 5 000 rows: ~80 calls instead of 10 000,
   * and no dictionary built per row). A run stops where the stream does not continue — a
   * self-contained record, a record of an older format, a child that saw fewer of its parent's
   * writes than are stored, a piece whose CRC fails — and what it did not decode is decoded
   * row by row when asked for, as before. Rows decoded already are skipped. Returns how many
   * records and writes records it decoded in bulk.
   */
  async prefetch(rows: readonly StoredRow[]): Promise<number> {
    let run: RunItem[] = [];
    let before: ChainText | undefined;
    let decoded = 0;
    const flush = async () => {
      if (run.length > 0 && before !== undefined) decoded += await this.#decodeRun(before, run);
      run = [];
      before = undefined;
    };
    for (const [index, row] of rows.entries()) {
      const key = rowKey(row.threadKey, row.checkpointId);
      if (row.data === undefined || (this.#records.has(key) && this.#writes.has(key))) {
        await flush();
        continue;
      }
      const piece = this.#records.has(key) ? undefined : chainedPiece(row.data);
      const previous = rows[index - 1];
      const last = run.at(-1);
      const continues =
        piece !== undefined &&
        previous?.checkpointId === row.parentId &&
        last !== undefined &&
        last.row === previous &&
        // The child's history holds its parent's writes exactly when it saw some of them.
        (last.kind === 'writes') === piece.count > 0;
      if (continues) {
        run.push({ row, kind: 'record', piece });
      } else {
        await flush();
        if (piece !== undefined && row.parentId !== undefined) {
          before = await this.childText(await this.#parentRow(row), piece.count);
          run.push({ row, kind: 'record', piece });
        } else {
          before = (await this.record(row)).text;
        }
      }
      const writes = row.writes === undefined ? undefined : chainedPiece(row.writes);
      if (writes !== undefined && !this.#writes.has(key)) run.push({ row, kind: 'writes', piece: writes });
      else if (row.writes !== undefined) await flush();
    }
    await flush();
    return decoded;
  }

  /**
   * Inflates one run of pieces (`before`: the history before its first) and remembers what
   * each decodes to, up to the first that fails its check. Returns how many it decoded.
   */
  async #decodeRun(before: ChainText, run: readonly RunItem[]): Promise<number> {
    const out = inflatePath(
      run.map((item) => item.piece.raw),
      dictionaryOf(before, 'history'),
    );
    if (out === undefined) return 0;
    let done = 0;
    let offset = 0;
    // The history before the next piece, and the last record decoded with its own writes' body.
    let text = before;
    let writesBodyOf: { row: StoredRow; body: Uint8Array } | undefined;
    for (const item of run) {
      let decoded: DecodedRecord<unknown>;
      try {
        ({ decoded, end: offset } = decodeBodyAt(out, offset, item.piece.crc));
      } catch {
        return done;
      }
      done += 1;
      const { row } = item;
      if (item.kind === 'record') {
        if (writesBodyOf !== undefined) {
          // The parent's writes as this child saw them: the stored body (what `childText` builds
          // for these writes, else this record's CRC fails).
          text = withWrites(
            (await this.record(writesBodyOf.row)).text,
            regularWrites(await this.writes(writesBodyOf.row), item.piece.count),
            writesBodyOf.body,
          );
          writesBodyOf = undefined;
        }
        text = (await this.#complete(row, text, decoded as DecodedRecord<StoredHeader>)).text;
      } else {
        const { record } = await this.record(row);
        this.rememberWrites(row, writesOf(decoded, taskIdsOf(row.checkpointId, record)));
        writesBodyOf = { row, body: decoded.body };
      }
    }
    return done;
  }

  /** Reads the rows with these ids of one thread that are not known yet. */
  async load(threadKey: number, checkpointIds: readonly string[]): Promise<void> {
    const wanted = [...new Set(checkpointIds)].filter((id) => this.row(threadKey, id) === undefined);
    for (let start = 0; start < wanted.length; start += 500) {
      const slice = wanted.slice(start, start + 500);
      const rows = await this.#executor.all(
        `SELECT thread, depth, checkpoint_id, parent_id, data, writes FROM ${this.#context.tables.checkpoints} WHERE thread = ? AND checkpoint_id IN (${slice.map(() => '?').join(', ')})`,
        [threadKey, ...slice.map(encodeId)],
      );
      this.add(...rows.map(storedRowOf));
    }
  }

  /**
   * The rows from `fromId` back along parents to `toId` (`''`: the thread's first
   * checkpoint), both included, oldest first (read in one query and made known), or undefined
   * when `toId` is not an ancestor of `fromId`.
   */
  async path(threadKey: number, fromId: string, toId: string): Promise<StoredRow[] | undefined> {
    const cp = this.#context.tables.checkpoints;
    const rows = (
      await this.#executor.all(walkBackSql(cp, 'chain.checkpoint_id <> ?', 'DESC'), [
        threadKey,
        encodeId(fromId),
        encodeId(toId),
      ])
    ).map(storedRowOf);
    const first = rows[0];
    if (first === undefined || (toId === '' ? first.parentId !== undefined : first.checkpointId !== toId))
      return undefined;
    this.add(...rows);
    return rows;
  }

  /**
   * The row `fromId` and up to `levels` of its ancestors (all of them when omitted), newest
   * first (read in one query and made known). With `stopAt`, the walk ends at that ancestor
   * (included) when it meets it first: a head extended by a few rows reads only those.
   */
  async ancestors(threadKey: number, fromId: string, levels?: number, stopAt?: string): Promise<StoredRow[]> {
    const cp = this.#context.tables.checkpoints;
    const conditions: string[] = [];
    const parameters: SqlParam[] = [threadKey, encodeId(fromId)];
    if (levels !== undefined) {
      conditions.push('chain.level < ?');
      parameters.push(levels);
    }
    if (stopAt !== undefined) {
      conditions.push('chain.checkpoint_id <> ?');
      parameters.push(encodeId(stopAt));
    }
    const rows = (
      await this.#executor.all(
        walkBackSql(cp, conditions.length === 0 ? undefined : conditions.join(' AND '), 'ASC'),
        parameters,
      )
    ).map(storedRowOf);
    this.add(...rows);
    return rows;
  }

  /**
   * A reader on the same storage that shares the writes its family decoded in replays (checked
   * against the stored bytes) but not its decoded records (with their chain texts, the bulk of
   * a long walk): a replay of many rows keeps only their writes, and a second replay of the
   * same rows (another channel) decodes nothing.
   */
  fork(options: { cache?: boolean } = {}): ChainReader {
    return new ChainReader(
      this.#context,
      this.#executor,
      options.cache ? this.#cache : undefined,
      this.#replayed,
    );
  }

  async #parentText(row: StoredRow, count: number): Promise<ChainText> {
    return this.childText(await this.#parentRow(row), count);
  }

  async #parentRow(row: StoredRow): Promise<StoredRow> {
    if (row.parentId === undefined) throw missing(row.checkpointId, 'parent');
    let parent = this.row(row.threadKey, row.parentId);
    if (parent === undefined) {
      const rows = await this.#executor.all(chainQuery(this.#context.tables), [
        row.threadKey,
        encodeId(row.parentId),
        MAX_CHAIN_DEPTH,
      ]);
      this.add(...rows.map(storedRowOf));
      parent = this.row(row.threadKey, row.parentId);
    }
    if (parent?.data === undefined) throw missing(row.parentId, 'chain record');
    return parent;
  }
}

/**
 * A record or value a decoded record points at is missing from storage — what a record
 * decoded earlier (this process's cache) looks like after another process's prune moved it.
 */
export function isMissingFromStorage(error: unknown): boolean {
  return CtxloomError.is(error, 'storage-error') && / is missing /u.test((error as Error).message);
}

function missing(checkpointId: string, what: string): CtxloomError {
  return new CtxloomError({
    code: 'storage-error',
    message: `${what} of checkpoint ${checkpointId} is missing from storage`,
    path: checkpointId,
  });
}

/**
 * A walk from one stored checkpoint back along its parents (rows with a record only), while
 * `condition` (if any) holds for the row reached; parameters: thread, start id, then the
 * condition's.
 */
function walkBackSql(cp: string, condition: string | undefined, order: 'ASC' | 'DESC'): string {
  return `WITH RECURSIVE chain(thread, depth, checkpoint_id, parent_id, data, writes, level) AS (
       SELECT thread, depth, checkpoint_id, parent_id, data, writes, 0 FROM ${cp} WHERE thread = ? AND checkpoint_id = ? AND data IS NOT NULL
       UNION ALL
       SELECT p.thread, p.depth, p.checkpoint_id, p.parent_id, p.data, p.writes, chain.level + 1
         FROM chain JOIN ${cp} p ON p.thread = chain.thread AND p.checkpoint_id = chain.parent_id AND p.data IS NOT NULL
${condition === undefined ? '' : `         WHERE ${condition}\n`}     )
     SELECT thread, depth, checkpoint_id, parent_id, data, writes FROM chain ORDER BY level ${order}`;
}
