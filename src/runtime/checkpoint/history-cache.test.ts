import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeltaSnapshot } from '@langchain/langgraph-checkpoint';
import { afterAll, describe, expect, it } from 'vitest';
import { CheckpointSerializer } from './checkpoint-serializer.ts';
import { HistoryCache } from './delta-history.ts';
import { helperProcess, helperTurn } from './helper-process.test-support.ts';
import { SqliteSaver } from './sqlite-saver.ts';

/** An entry whose one channel holds `writes` writes stored as `bytes` bytes. */
function entry(targetId: string, bytes: number) {
  return {
    targetId,
    channels: new Map([
      [
        'session_calls',
        { writes: [['task', 'session_calls', [targetId]] as [string, string, unknown]], bytes },
      ],
    ]),
    included: new Set([`${targetId}-parent`]),
  };
}

describe('HistoryCache', () => {
  it('holds the histories of all threads within its bytes: the least recently read thread goes first, the one just read stays', () => {
    const cache = new HistoryCache(64, 1000);
    cache.set(1, entry('a', 400));
    cache.set(2, entry('b', 400));
    expect(cache.get(1)?.targetId).toBe('a'); // thread 1 read last: thread 2 is the oldest
    cache.set(3, entry('c', 400));
    expect([cache.get(1)?.targetId, cache.get(2), cache.get(3)?.targetId]).toEqual(['a', undefined, 'c']);
    // One long thread over the whole bound is kept alone (its next turn extends it).
    cache.set(4, entry('d', 5000));
    expect([cache.get(1), cache.get(3), cache.get(4)?.targetId]).toEqual([undefined, undefined, 'd']);
  });

  it('forgets an entry whose included checkpoint is written, and gives its bytes back', () => {
    const cache = new HistoryCache(64, 1000);
    cache.set(1, entry('a', 600));
    cache.invalidate(1, 'other');
    expect(cache.get(1)?.targetId).toBe('a');
    cache.invalidate(1, 'a-parent');
    expect(cache.get(1)).toBeUndefined();
    cache.set(2, entry('b', 600));
    cache.set(3, entry('c', 400)); // fits beside b: a's bytes were given back
    expect([cache.get(2)?.targetId, cache.get(3)?.targetId]).toEqual(['b', 'c']);
  });
});

describe('a saver’s history cache', () => {
  const directory = mkdtempSync(join(tmpdir(), 'ctxloom-history-cache-'));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  /** A serializer that counts what it decodes. */
  class CountingSerializer extends CheckpointSerializer {
    decoded = 0;
    override async loadsTyped(type: string, data: Uint8Array | string): Promise<unknown> {
      this.decoded++;
      return super.loadsTyped(type, data);
    }
  }

  /** Decodes needed to read thread `a` again after six turns on `a`, then six on `b`. */
  async function decodesAfterAnotherThread(options: { historyCacheBytes?: number }): Promise<number> {
    const serde = new CountingSerializer();
    const saver = new SqliteSaver({
      path: join(directory, `${String(options.historyCacheBytes)}.db`),
      serde,
      ...options,
    });
    const graph = helperProcess(saver);
    const turn = (thread: string, at: number) => helperTurn(graph, thread, at);
    for (let at = 0; at < 6; at++) await turn('a', at);
    for (let at = 0; at < 6; at++) await turn('b', at);
    serde.decoded = 0;
    const state = await graph.getState({ configurable: { thread_id: 'a' } });
    expect((state.values as { messages: unknown[] }).messages).toHaveLength(12);
    await saver.close();
    return serde.decoded;
  }

  it('keeps the threads in use within historyCacheBytes: at 0, reading another thread evicts the first, whose history is decoded again', async () => {
    const kept = await decodesAfterAnotherThread({});
    const evicted = await decodesAfterAnotherThread({ historyCacheBytes: 0 });
    expect(evicted).toBeGreaterThan(kept);
  });

  it('decodes a snapshot once: the head that holds it and the next head’s history share its value', async () => {
    // The class counts the snapshots it decodes (a long session's whole message list each).
    class SnapshotCounter extends CheckpointSerializer {
      snapshots = 0;
      override async loadsTyped(type: string, data: Uint8Array | string): Promise<unknown> {
        const value = await super.loadsTyped(type, data);
        if (value instanceof DeltaSnapshot) this.snapshots++;
        return value;
      }
    }
    const serde = new SnapshotCounter();
    const saver = new SqliteSaver({ path: join(directory, 'snapshot-once.db'), serde });
    const graph = helperProcess(saver, { snapshotFrequency: 3 });
    const config = { configurable: { thread_id: 's' } };
    const written = new Set<string>();
    for (let at = 0; at < 12; at++) {
      await helperTurn(graph, 's', at);
      await graph.getState(config);
      await graph.getState(config);
    }
    for await (const tuple of saver.list(config)) {
      for (const [channel, value] of Object.entries(tuple.checkpoint.channel_values))
        if (value instanceof DeltaSnapshot) written.add(`${tuple.checkpoint.id}/${channel}`);
    }
    serde.snapshots -= written.size; // the list above decoded each once more
    expect(written.size).toBeGreaterThan(4);
    // Each snapshot read once by the hot process (the reads of the head, the histories after it).
    expect(serde.snapshots).toBeLessThanOrEqual(written.size);
    const cold = new SqliteSaver({ path: join(directory, 'snapshot-once.db') });
    const coldGraph = helperProcess(cold, { snapshotFrequency: 3 });
    expect((await graph.getState(config)).values).toEqual((await coldGraph.getState(config)).values);
    await cold.close();
    await saver.close();
  });

  it('names a historyCacheBytes that is not a whole number of bytes ≥ 0', () => {
    for (const historyCacheBytes of [-1, 1.5, Number.NaN]) {
      expect(() => new SqliteSaver({ path: ':memory:', historyCacheBytes })).toThrow(
        expect.objectContaining({ code: 'invalid-argument', path: 'historyCacheBytes' }),
      );
    }
  });
});
