import { describe, expect, it } from 'vitest';
import type { CallRecord } from '../core/index.ts';
import { turnCalls } from './run-process-turn.ts';

/** A log of call records, newest last, listed as a store does (the newest `limit`), counting reads. */
function log(turns: string[]) {
  const calls = turns.map((turnId, index) => ({ id: `c${index}`, turnId }) as unknown as CallRecord);
  const limits: number[] = [];
  return {
    limits,
    store: {
      listCalls: async (_sessionId: string, options: { limit?: number } = {}) => {
        const limit = Math.min(1000, options.limit ?? 200);
        limits.push(limit);
        return calls.slice(-limit);
      },
    },
  };
}

describe('turnCalls', () => {
  it('reads a turn’s few calls from a long log without listing the whole log', async () => {
    const { store, limits } = log([
      ...Array.from({ length: 190 }, (_, index) => `t${index >> 1}`),
      'now',
      'now',
    ]);
    expect((await turnCalls(store, 's', 'now')).map((call) => call.id)).toEqual(['c190', 'c191']);
    expect(limits).toEqual([8]);
  });

  it('widens the window until an older record precedes the turn’s first', async () => {
    const { store, limits } = log(['old', ...Array.from({ length: 40 }, () => 'now')]);
    expect(await turnCalls(store, 's', 'now')).toHaveLength(40);
    expect(limits).toEqual([8, 32, 128]);
  });

  it('gives none for a turn that made no call, and all of a log that is the turn’s', async () => {
    expect(await turnCalls(log(['a', 'b']).store, 's', 'now')).toEqual([]);
    expect(await turnCalls(log(['now', 'now', 'now']).store, 's', 'now')).toHaveLength(3);
  });
});
