import { afterEach, describe, expect, it, vi } from 'vitest';
import { expectQuotedWhole } from '../doc-examples.test-support.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

/** What a module logs when imported, one array per console.log call. */
async function logsOf(load: () => Promise<unknown>): Promise<unknown[][]> {
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  await load();
  return log.mock.calls;
}

const QUOTE = '指标口径：GMV 必须按实付金额计算，不含退款。';

describe('docs/compression.md', () => {
  it('quotes its four examples whole, in order', async () => {
    await expectQuotedWhole('docs/compression.md', [
      'examples/compression/compression-blackboard.ts',
      'examples/compression/requirement-todo.ts',
      'examples/compression/router-and-commander.ts',
      'examples/compression/dynamic-process.ts',
    ]);
  });

  it('keeps compression state in the Blackboard: one node patch, read back by the checkpoint store, a stale revision refused', async () => {
    expect(await logsOf(() => import('./compression-blackboard.ts'))).toEqual([
      [
        [
          {
            id: 'r1',
            kind: 'human',
            status: 'pending',
            createdBy: 'planner',
            question: 'Daily or hourly partitions?',
          },
        ],
      ],
      [0, ['plan:orders_daily@v1']],
      ['conflict'],
    ]);
  });

  it('applies a requirement delta: the next global id, an anchor quoting the message, the delta id <messageId>@<scope>', async () => {
    expect(await logsOf(() => import('./requirement-todo.ts'))).toEqual([
      ['applied', 'u3@G', []],
      ['G1', 'rule', { turnIndex: 3, messageId: 'u3', quote: '金额口径用实付金额，不含退款。' }],
    ]);
  });

  it('routes a message and applies the commander patch: a global requirement quoting the user', async () => {
    expect(await logsOf(() => import('./router-and-commander.ts'))).toEqual([
      ['routed', ['propose_global_delta:applied']],
      ['G1', 'rule', QUOTE],
    ]);
  });

  it('runs the dynamic process: the commander routes to the analyst, who answers; the requirement is in the checkpoint', async () => {
    const [target, ids, requirements] = await logsOf(() => import('./dynamic-process.ts'));
    expect(target).toEqual(['analyst']);
    expect(ids?.[0]).toEqual([
      'human:window-1:u1',
      expect.stringMatching(/^analyst:[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}:0$/u),
    ]);
    expect(requirements).toEqual([['G1']]);
  });
});
