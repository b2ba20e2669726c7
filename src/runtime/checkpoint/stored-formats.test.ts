import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CheckpointTuple } from '@langchain/langgraph';
import { afterAll, describe, expect, it } from 'vitest';
import { chat, chatGraph, sqliteRecordFormats } from './saver-scenarios.test-support.ts';
import { SqliteSaver } from './sqlite-saver.ts';

/**
 * `test/fixtures/checkpoint-format-3.db`: 12 turns of `chat` (snapshots every 6 updates) on
 * thread `format-3`, written by ctxloom 94381e0 — every record in format 3, chained ones
 * deflated against the two windows of that format. The JSON beside it is that version's
 * `getState` of the thread.
 */
const fixture = new URL('../../../test/fixtures/checkpoint-format-3', import.meta.url).pathname;
const directory = mkdtempSync(join(tmpdir(), 'ctxloom-formats-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

async function tuples(saver: SqliteSaver): Promise<CheckpointTuple[]> {
  const out: CheckpointTuple[] = [];
  for await (const tuple of saver.list({ configurable: { thread_id: 'format-3' } })) out.push(tuple);
  return out;
}

const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

describe('a thread stored by an earlier version (record format 3)', () => {
  it('is read as it was written, continued in format 5 on top of it, and pruned', async () => {
    const path = join(directory, 'format-3.db');
    copyFileSync(`${fixture}.db`, path);
    const expected = JSON.parse(readFileSync(`${fixture}.json`, 'utf8')) as {
      checkpointId: string;
      values: unknown;
    };
    expect(sqliteRecordFormats(path)).toEqual({ '3': 48 });

    const saver = new SqliteSaver({ path, durability: 'normal' });
    const app = chatGraph(6).compile({ checkpointer: saver });
    const config = { configurable: { thread_id: 'format-3' } };
    const old = await app.getState(config);
    expect(old.config.configurable?.checkpoint_id).toBe(expected.checkpointId);
    expect(plain(old.values)).toEqual(expected.values);

    // New rows chain to the old ones: a format-5 record deflated against format-3 parents.
    await chat(saver, 'format-3', 6, { snapshotFrequency: 6, firstTurn: 12 });
    const hot = await app.getState(config);
    const hotTuples = await tuples(saver);
    await saver.close();
    const stored = sqliteRecordFormats(path);
    expect(stored['3']).toBeGreaterThanOrEqual(48);
    expect(stored['5']).toBeGreaterThan(0);

    const fresh = new SqliteSaver({ path, durability: 'normal' });
    const cold = await chatGraph(6).compile({ checkpointer: fresh }).getState(config);
    expect(plain(cold.values)).toEqual(plain(hot.values));
    expect((cold.values as { messages: unknown[] }).messages).toHaveLength(36);
    expect(plain(await tuples(fresh))).toEqual(plain(hotTuples));

    // Prune rewrites the kept rows whose chain it cuts: old rows come back in today's formats.
    const pruned = await fresh.prune({ keepLast: 4 });
    expect(pruned.deletedCheckpoints).toBeGreaterThan(0);
    await fresh.close();
    const again = new SqliteSaver({ path, durability: 'normal' });
    const afterPrune = await chatGraph(6).compile({ checkpointer: again }).getState(config);
    expect(plain(afterPrune.values)).toEqual(plain(hot.values));
    await again.close();
  });
});
