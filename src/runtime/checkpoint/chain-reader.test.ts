import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { CtxloomError } from '../../core/errors.ts';
import { ChainReader } from './chain-reader.ts';
import { dictionaryOf } from './chain-text.ts';
import { type StoredRow, storedRowOf } from './checkpoint-rows.ts';
import { checkpointTables } from './checkpoint-schema.ts';
import { CheckpointSerializer } from './checkpoint-serializer.ts';
import { encodeId } from './id-codec.ts';
import { chat } from './saver-scenarios.test-support.ts';
import { createSqliteDriver } from './sqlite-driver.ts';
import { SqliteSaver } from './sqlite-saver.ts';

const directory = mkdtempSync(join(tmpdir(), 'ctxloom-chain-reader-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** Every row of the database's one thread, oldest first (a linear thread: each the parent of the next). */
function threadRows(path: string): StoredRow[] {
  const database = new DatabaseSync(path, { readOnly: true });
  try {
    return (
      database
        .prepare(
          'SELECT thread, depth, checkpoint_id, parent_id, data, writes FROM ctxloom_cp_checkpoints WHERE thread >= 0 AND data IS NOT NULL ORDER BY checkpoint_id',
        )
        .all() as Parameters<typeof storedRowOf>[0][]
    ).map(storedRowOf);
  } finally {
    database.close();
  }
}

/** What a reader decodes for each row: header, metadata, values, writes and the dictionary a child would use. */
async function decodeAll(reader: ChainReader, rows: readonly StoredRow[]) {
  const out: unknown[] = [];
  for (const row of rows) {
    const { record, text } = await reader.record(row);
    const writes = await reader.writes(row);
    out.push({
      header: record.header,
      metadata: Buffer.from(record.metadata).toString('base64'),
      values: [...record.values].map(([channel, [type, bytes]]) => [
        channel,
        type,
        Buffer.from(bytes).toString('base64'),
      ]),
      writes: writes.map((write) => ({ ...write, bytes: Buffer.from(write.bytes).toString('base64') })),
      history: Buffer.from(dictionaryOf(text)).toString('base64'),
    });
  }
  return out;
}

/**
 * The thread of the database at `path` decoded twice by fresh readers: row by row, and after
 * one `prefetch` of the whole path (how many pieces it decoded in bulk).
 */
async function bothWays(path: string) {
  const driver = createSqliteDriver({ path, durability: 'normal' });
  const context = {
    tables: checkpointTables({ prefix: 'ctxloom_cp_' }),
    serde: new CheckpointSerializer(),
    compression: 'deflate' as const,
  };
  try {
    const rows = threadRows(path);
    const byRow = new ChainReader(context, driver);
    byRow.add(...rows);
    const expected = await decodeAll(byRow, rows);
    const bulk = new ChainReader(context, driver);
    bulk.add(...rows);
    const inBulk = await bulk.prefetch(rows);
    const pieces = rows.length + rows.filter((row) => row.writes !== undefined).length;
    return { expected, decoded: await decodeAll(bulk, rows), inBulk, pieces };
  } finally {
    await driver.close();
  }
}

describe('ChainReader.prefetch', () => {
  it('decodes a path in bulk to exactly what row-by-row decoding gives', async () => {
    const path = join(directory, 'bulk.db');
    const saver = new SqliteSaver({ path, durability: 'normal' });
    await chat(saver, 'bulk', 40, { snapshotFrequency: 16 });
    await saver.close();
    const { expected, decoded, inBulk, pieces } = await bothWays(path);
    // Rows holding a snapshot and every 64th row start their chain again: decoded row by row.
    expect(inBulk).toBeGreaterThan(pieces * 0.8);
    expect(decoded).toEqual(expected);
  });

  it('falls back to row-by-row decoding where a child saw fewer of its parent writes than are stored', async () => {
    const path = join(directory, 'late-write.db');
    const before = join(directory, 'late-write-before.db');
    let saver = new SqliteSaver({ path, durability: 'normal' });
    const { config } = await chat(saver, 'late', 6);
    const tuples = [];
    for await (const tuple of saver.list(config)) tuples.push(tuple);
    await saver.close();
    copyFileSync(path, before);
    // A write to an old checkpoint, after its child counted its writes: the stored writes
    // record is no longer what the child's history holds.
    const old = tuples.slice(4).find((tuple) => (tuple.pendingWrites?.length ?? 0) > 0);
    if (old === undefined) throw new Error('no old checkpoint with writes');
    saver = new SqliteSaver({ path, durability: 'normal' });
    await saver.putWrites(old.config, [['late_channel', 'late value']], 'late-task');
    await saver.close();
    const { inBulk: inBulkBefore } = await bothWays(before);
    const { expected, decoded, inBulk } = await bothWays(path);
    // The run stops at the child whose history no longer matches; the rest decodes row by row.
    expect(inBulk).toBeGreaterThan(0);
    expect(inBulk).toBeLessThan(inBulkBefore);
    expect(decoded).toEqual(expected);
    expect(JSON.stringify(decoded)).toContain('late_channel');
  });

  it('leaves a damaged row to row-by-row decoding, which answers with a storage error', async () => {
    const path = join(directory, 'damaged.db');
    const saver = new SqliteSaver({ path, durability: 'normal' });
    await chat(saver, 'damaged', 6);
    await saver.close();
    const rows = threadRows(path);
    const victim = rows[Math.floor(rows.length / 2)];
    if (victim?.data === undefined) throw new Error('no row to damage');
    const damaged = Buffer.from(victim.data);
    damaged[damaged.byteLength - 3] = (damaged[damaged.byteLength - 3] ?? 0) ^ 0x5a;
    const database = new DatabaseSync(path);
    database
      .prepare('UPDATE ctxloom_cp_checkpoints SET data = ? WHERE thread = ? AND checkpoint_id = ?')
      .run(damaged, victim.threadKey, encodeId(victim.checkpointId));
    database.close();
    const driver = createSqliteDriver({ path, durability: 'normal' });
    const reader = new ChainReader(
      {
        tables: checkpointTables({ prefix: 'ctxloom_cp_' }),
        serde: new CheckpointSerializer(),
        compression: 'deflate',
      },
      driver,
    );
    const stored = threadRows(path);
    reader.add(...stored);
    // The run stops at the damaged piece: no throw, fewer pieces than the path holds.
    expect(await reader.prefetch(stored)).toBeLessThan(stored.length);
    const row = stored.find((candidate) => candidate.checkpointId === victim.checkpointId);
    if (row === undefined) throw new Error('damaged row not read back');
    await expect(reader.record(row)).rejects.toSatisfy((error: unknown) =>
      CtxloomError.is(error, 'storage-error'),
    );
    await driver.close();
  });
});
