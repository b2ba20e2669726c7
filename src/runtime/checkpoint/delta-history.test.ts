import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BaseMessage } from '@langchain/core/messages';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { BlackboardState } from '../../state/index.ts';
import { ChainReader } from './chain-reader.ts';
import { EXTEND_LEVELS } from './delta-history.ts';
import { helperProcess, helperTurn } from './helper-process.test-support.ts';
import { SqliteSaver } from './sqlite-saver.ts';

const directory = mkdtempSync(join(tmpdir(), 'ctxloom-history-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

function open(path: string) {
  const saver = new SqliteSaver({ path });
  return { saver, graph: helperProcess(saver, { snapshotFrequency: 3 }) };
}

const summary = (values: unknown) => {
  const state = values as BlackboardState;
  return {
    messages: (state.messages as BaseMessage[]).map((message) => `${message.id}:${message.text}`),
    inputs: state.processed_inputs,
    timeline: state.timeline.entries.length,
  };
};

describe('delta-channel history (cached head)', () => {
  it('gives the hot process the same state a fresh process reads, across snapshots and prunes', async () => {
    const path = join(directory, 'history.db');
    const hot = open(path);
    const config = { configurable: { thread_id: 'h' } };
    for (let turn = 0; turn < 14; turn += 1) {
      await helperTurn(hot.graph, 'h', turn);
      if (turn % 5 === 4) await hot.saver.prune({ keepLast: 3 });
      const cold = open(path);
      const expected = summary((await cold.graph.getState(config)).values);
      expect(summary((await hot.graph.getState(config)).values)).toEqual(expected);
      expect(expected.messages).toHaveLength(2 * (turn + 1));
      expect(expected.timeline).toBe(turn + 1);
      await cold.saver.close();
    }
    await hot.saver.close();
  });

  it('extends the cached head by reading only the rows written since it', async () => {
    const hot = open(join(directory, 'extend.db'));
    const config = { configurable: { thread_id: 'e' } };
    const turn = (index: number) => helperTurn(hot.graph, config.configurable.thread_id, index);
    for (let index = 0; index < 20; index += 1) await turn(index);
    const read = vi.spyOn(ChainReader.prototype, 'ancestors');
    try {
      await turn(20);
      const walks = await Promise.all(read.mock.results.map((result) => result.value as Promise<unknown[]>));
      expect(walks.length).toBeGreaterThan(0);
      // The chain is ~60 rows long; each walk stops at the head the last read cached.
      for (const rows of walks) expect(rows.length).toBeLessThan(EXTEND_LEVELS / 2);
    } finally {
      read.mockRestore();
    }
    const cold = open(join(directory, 'extend.db'));
    expect(summary((await hot.graph.getState(config)).values)).toEqual(
      summary((await cold.graph.getState(config)).values),
    );
    await cold.saver.close();
    await hot.saver.close();
  });

  it('extends a cached head whose history lacks a channel asked for now, from that channel’s seed', async () => {
    // At a checkpoint that holds a channel's snapshot, LangGraph asks the history of the other
    // channels only; the next head's read asks for all of them. It read the chain back to every
    // channel's snapshot (a long process session's slowest turns), not the rows since the head.
    const hot = open(join(directory, 'lacking.db'));
    const config = { configurable: { thread_id: 'l' } };
    const turn = (index: number) => helperTurn(hot.graph, config.configurable.thread_id, index);
    for (let index = 0; index < 19; index += 1) await turn(index);
    const head = (await hot.graph.getState(config)).config.configurable?.checkpoint_id as string;
    await turn(19);
    await turn(20);
    // The last read before the newest head's: an older head's history, without `messages`.
    await hot.saver.getDeltaChannelHistory({
      config: { configurable: { thread_id: 'l', checkpoint_ns: '', checkpoint_id: head } },
      channels: ['processed_inputs', 'timeline'],
    });
    const at = { configurable: { thread_id: 'l', checkpoint_ns: '' } };
    const read = vi.spyOn(ChainReader.prototype, 'ancestors');
    let history: Awaited<ReturnType<SqliteSaver['getDeltaChannelHistory']>>;
    try {
      history = await hot.saver.getDeltaChannelHistory({
        config: at,
        channels: ['messages', 'processed_inputs', 'timeline'],
      });
      const walks = await Promise.all(read.mock.results.map((result) => result.value as Promise<unknown[]>));
      expect(walks.length).toBeGreaterThan(0);
      // The chain is ~60 rows long; the walk reads back to the cached head and the messages' seed.
      for (const rows of walks) expect(rows.length).toBeLessThan(EXTEND_LEVELS / 2);
    } finally {
      read.mockRestore();
    }
    const cold = open(join(directory, 'lacking.db'));
    const fresh = await cold.saver.getDeltaChannelHistory({
      config: at,
      channels: ['messages', 'processed_inputs', 'timeline'],
    });
    // The same seed and writes as a fresh saver's walk, or an older seed with the writes since.
    for (const channel of ['messages', 'processed_inputs', 'timeline']) {
      expect(JSON.stringify(history[channel])).toBe(JSON.stringify(fresh[channel]));
    }
    expect(summary((await hot.graph.getState(config)).values)).toEqual(
      summary((await cold.graph.getState(config)).values),
    );
    await cold.saver.close();
    await hot.saver.close();
  });
});
