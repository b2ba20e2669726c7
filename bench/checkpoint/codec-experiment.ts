/**
 * The measurements behind decisions 038 and 039, re-runnable: drives `createDynamicProcess` with
 * compression for `BENCH_CHECKPOINT_TURNS` turns (default 1 000) on ctxloom's SQLite saver,
 * then decodes every row of the thread and compresses its bodies again each way:
 *
 *   CTXLOOM_LOCOMO_PATH=…/locomo-dev.json npx node --conditions=ctxloom-source \
 *     bench/checkpoint/codec-experiment.ts
 *
 * Prints JSON: the chained records and writes records DEFLATE-d against the two windows of
 * formats 2–3 against the path history of format 5 (bytes, each with the 7 bytes of record
 * framing), each snapshot row's body DEFLATE-d (level 6) against Brotli (quality 9, 10 and 11),
 * with the CPU time of compressing it (median of 5), and the chained bodies against their
 * history at DEFLATE level 6 and at level 9 / memory level 9 (decision 039), with the CPU time
 * of compressing all of them (median of 5).
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { brotliCompressSync, constants, deflateRawSync } from 'node:zlib';
import { ChainReader } from '../../src/runtime/checkpoint/chain-reader.ts';
import { dictionaryOf } from '../../src/runtime/checkpoint/chain-text.ts';
import { decodeStoredRecord } from '../../src/runtime/checkpoint/checkpoint-record.ts';
import { storedRowOf } from '../../src/runtime/checkpoint/checkpoint-rows.ts';
import { checkpointTables } from '../../src/runtime/checkpoint/checkpoint-schema.ts';
import { CheckpointSerializer } from '../../src/runtime/checkpoint/checkpoint-serializer.ts';
import {
  type DictionaryKind,
  decodeRecord,
  dictionaryKind,
  isChained,
  recordCount,
} from '../../src/runtime/checkpoint/record-codec.ts';
import { createSqliteDriver } from '../../src/runtime/checkpoint/sqlite-driver.ts';
import { SqliteSaver } from '../../src/runtime/index.ts';
import { loadLocomoMessages } from './locomo-messages.ts';
import { realProcess } from './real-processes.ts';
import { median } from './timed-saver.ts';

/**
 * Version, flags, CRC-32 of the dictionary and a one-byte count: what a chained record adds to
 * its DEFLATE stream. Dictionaries as `dictionaryOf` builds them (the static dictionary first).
 */
const FRAMING = 7;
const turns = Number(process.env.BENCH_CHECKPOINT_TURNS ?? 1000);
const path = join(tmpdir(), `ctxloom-codec-${process.pid}.db`);
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
  await saver.close();

  const driver = createSqliteDriver({ path, durability: 'normal' });
  const context = {
    tables: checkpointTables({ prefix: 'ctxloom_cp_' }),
    serde: new CheckpointSerializer(),
    compression: 'deflate' as const,
  };
  const reader = new ChainReader(context, driver);
  const database = new DatabaseSync(path, { readOnly: true });
  const rows = (
    database
      .prepare(
        'SELECT thread, depth, checkpoint_id, parent_id, data, writes FROM ctxloom_cp_checkpoints WHERE thread >= 0 AND data IS NOT NULL ORDER BY checkpoint_id',
      )
      .all() as Parameters<typeof storedRowOf>[0][]
  ).map(storedRowOf);
  database.close();
  reader.add(...rows);

  const chained: Record<DictionaryKind, number> = { windows: 0, history: 0 };
  type Way = 'deflate' | 'brotli9' | 'brotli10' | 'brotli11';
  /** Chained bodies with their history dictionaries, for the DEFLATE-level comparison. */
  const histories: { body: Buffer; dictionary: Buffer }[] = [];
  const snapshots: ({ body: number; cpuMs: Record<Way, number> } & Record<Way, number>)[] = [];
  const cpuMedian = (work: () => unknown) => {
    const times: number[] = [];
    for (let round = 0; round < 5; round += 1) {
      const start = process.cpuUsage();
      work();
      const used = process.cpuUsage(start);
      times.push((used.user + used.system) / 1000);
    }
    return Math.round(median(times) * 10) / 10;
  };
  const compressAgainst = (
    body: Uint8Array,
    dictionary: Uint8Array,
    effort: { level?: number; memLevel?: number } = {},
  ) => deflateRawSync(body, { dictionary: dictionary.subarray(-32 * 1024), ...effort }).byteLength + FRAMING;
  for (const row of rows) {
    const data = row.data as Uint8Array;
    const own = await reader.record(row);
    if (isChained(data)) {
      const parent = reader.row(row.threadKey, row.parentId as string);
      if (parent === undefined) throw new Error(`parent of ${row.checkpointId} missing`);
      const prefix = await reader.childText(parent, recordCount(data));
      const { body } = decodeStoredRecord(data, dictionaryOf(prefix, dictionaryKind(data)));
      const copy = Buffer.from(body);
      for (const kind of ['windows', 'history'] as const)
        chained[kind] += compressAgainst(copy, Buffer.from(dictionaryOf(prefix, kind)));
      histories.push({ body: copy, dictionary: Buffer.from(dictionaryOf(prefix, 'history')) });
    } else if (data.byteLength > 16 * 1024) {
      const body = Buffer.from(decodeStoredRecord(data).body);
      const brotli = (quality: number) => () =>
        brotliCompressSync(body, {
          params: {
            [constants.BROTLI_PARAM_QUALITY]: quality,
            [constants.BROTLI_PARAM_LGWIN]: 22,
            [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
            [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength,
          },
        }).byteLength;
      const ways: Record<Way, () => number> = {
        deflate: () => deflateRawSync(body).byteLength,
        brotli9: brotli(9),
        brotli10: brotli(10),
        brotli11: brotli(11),
      };
      snapshots.push({
        body: body.byteLength,
        deflate: ways.deflate(),
        brotli9: ways.brotli9(),
        brotli10: ways.brotli10(),
        brotli11: ways.brotli11(),
        cpuMs: {
          deflate: cpuMedian(ways.deflate),
          brotli9: cpuMedian(ways.brotli9),
          brotli10: cpuMedian(ways.brotli10),
          brotli11: cpuMedian(ways.brotli11),
        },
      });
    }
    if (row.writes !== undefined && isChained(row.writes)) {
      const { body } = decodeRecord(row.writes, dictionaryOf(own.text, dictionaryKind(row.writes)));
      const copy = Buffer.from(body);
      for (const kind of ['windows', 'history'] as const)
        chained[kind] += compressAgainst(copy, Buffer.from(dictionaryOf(own.text, kind)));
      histories.push({ body: copy, dictionary: Buffer.from(dictionaryOf(own.text, 'history')) });
    }
  }
  await driver.close();
  const levels = Object.fromEntries(
    (
      [
        ['level6', {}],
        ['level9', { level: 9, memLevel: 9 }],
      ] as const
    ).map(([name, effort]) => {
      const all = () =>
        histories.reduce((sum, { body, dictionary }) => sum + compressAgainst(body, dictionary, effort), 0);
      return [name, { bytes: all(), cpuMs: cpuMedian(all), records: histories.length }];
    }),
  );
  console.log(
    JSON.stringify(
      {
        turns,
        rows: rows.length,
        chainedRecordsAndWrites: {
          ...chained,
          saved: `${Math.round((1 - chained.history / chained.windows) * 1000) / 10} %`,
        },
        chainedByLevel: levels,
        snapshots,
      },
      null,
      1,
    ),
  );
} finally {
  for (const end of ['', '-wal', '-shm']) rmSync(`${path}${end}`, { force: true });
}
