/**
 * An experiment for the layout issue 17 still needs (`docs/state.md`, "What remains"): the
 * pending-write values of a real thread stored as one DEFLATE stream along the thread —
 * each checkpoint's values deflated against the last 32 KiB of the stream before them and
 * sync-flushed, so any path's chunks, concatenated, inflate in one call. Drives
 * `createDynamicProcess` with compression for `BENCH_CHECKPOINT_TURNS` turns (default 1 000)
 * on ctxloom's SQLite saver, then compares with what that saver stores:
 *
 *   CTXLOOM_LOCOMO_PATH=…/locomo-dev.json node --conditions=ctxloom-source \
 *     bench/checkpoint/write-stream-experiment.ts
 *
 * Prints JSON: the values' text, the stream's bytes, the saver's `writes` column (values and
 * their task ids, channels and indexes), and the CPU time of inflating the stream in one call
 * against inflating the same chunks one by one, each with its dictionary (what a row-by-row
 * replay pays in zlib alone; medians of 7).
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { constants, deflateRawSync, inflateRawSync } from 'node:zlib';
import { SqliteSaver } from '../../src/runtime/index.ts';
import { loadLocomoMessages } from './locomo-messages.ts';
import { realProcess } from './real-processes.ts';
import { median } from './timed-saver.ts';

const WINDOW = 32 * 1024 - 262;
const turns = Number(process.env.BENCH_CHECKPOINT_TURNS ?? 1000);
const path = join(tmpdir(), `ctxloom-write-stream-${process.pid}.db`);
const locomo = process.env.CTXLOOM_LOCOMO_PATH;
const texts = await loadLocomoMessages({
  count: 2 * turns,
  charsPerMessage: 500,
  cycle: true,
  ...(locomo === undefined ? {} : { path: locomo }),
});
const saver = new SqliteSaver({ path, durability: 'normal' });
try {
  const run = realProcess({ kind: 'dynamic', saver, texts, thread: 'experiment' });
  for (let turn = 0; turn < turns; turn += 1) await run.turn(turn);

  // Each checkpoint's pending-write values as the serialiser writes them, oldest first.
  const tuples = [];
  for await (const tuple of saver.list({ configurable: { thread_id: 'experiment' } })) tuples.push(tuple);
  tuples.reverse();
  const values: Buffer[] = [];
  for (const tuple of tuples) {
    const parts: Buffer[] = [];
    for (const [, channel, value] of tuple.pendingWrites ?? []) {
      const [, bytes] = await saver.serde.dumpsTyped(value);
      parts.push(Buffer.from(`${channel}\u0000${bytes.byteLength}\u0000`), Buffer.from(bytes));
    }
    values.push(Buffer.concat(parts));
  }

  let window = Buffer.alloc(0);
  const chunks: { bytes: Buffer; dictionary: Buffer }[] = [];
  for (const text of values) {
    if (text.byteLength === 0) continue;
    const options = {
      finishFlush: constants.Z_SYNC_FLUSH,
      ...(window.byteLength > 0 ? { dictionary: window } : {}),
    };
    chunks.push({ bytes: deflateRawSync(text, options), dictionary: window });
    window = Buffer.concat([window, text]).subarray(-WINDOW);
  }
  const stream = Buffer.concat(chunks.map((chunk) => chunk.bytes));
  const expected = Buffer.concat(values);
  const cpu = (work: () => void) => {
    const start = process.cpuUsage();
    work();
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1000;
  };
  const bulk: number[] = [];
  const perRow: number[] = [];
  for (let round = 0; round < 7; round += 1) {
    bulk.push(
      cpu(() => {
        if (!inflateRawSync(stream, { finishFlush: constants.Z_SYNC_FLUSH }).equals(expected))
          throw new Error('the stream does not inflate to the values');
      }),
    );
    perRow.push(
      cpu(() => {
        for (const chunk of chunks) {
          inflateRawSync(chunk.bytes, {
            finishFlush: constants.Z_SYNC_FLUSH,
            ...(chunk.dictionary.byteLength > 0 ? { dictionary: chunk.dictionary } : {}),
          });
        }
      }),
    );
  }
  const db = new DatabaseSync(path, { readOnly: true });
  const stored = db.prepare('SELECT sum(length(writes)) AS writes FROM ctxloom_cp_checkpoints').get() as {
    writes: number;
  };
  db.close();
  console.log(
    JSON.stringify(
      {
        turns,
        checkpoints: tuples.length,
        chunks: chunks.length,
        valuesText: expected.byteLength,
        streamBytes: stream.byteLength,
        storedWritesColumn: stored.writes,
        inflateOnceCpuMs: Math.round(median(bulk) * 10) / 10,
        inflateEachChunkCpuMs: Math.round(median(perRow) * 10) / 10,
      },
      null,
      1,
    ),
  );
} finally {
  await saver.close();
  for (const end of ['', '-wal', '-shm']) rmSync(`${path}${end}`, { force: true });
}
