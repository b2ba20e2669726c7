import { describe, expect, it } from 'vitest';
import { createCallLogWriter } from './call-log-writer.ts';
import type { CallRecord } from './call-record.ts';
import type { CompileReport } from './report.ts';

const compiled = {
  report: { totalTokens: 7 } as CompileReport,
  messages: [{ id: 'u1', role: 'user' as const, content: 'hi' }],
};

describe('createCallLogWriter', () => {
  it('makes one record per call with the turn, step, clock, model and agent, and appends it', async () => {
    const records: CallRecord[] = [];
    let next = 0;
    const writer = createCallLogWriter({
      turnId: 'u1',
      model: 'mock:model',
      agentId: 'helper',
      createId: () => `c${++next}`,
      now: () => new Date('2026-03-01T10:00:00.000Z'),
      append: (record) => {
        records.push(record);
      },
    });
    const pending = writer.log(compiled, 0);
    // A synchronous sink (an agent node's patch) holds the record as soon as `log` returns.
    expect(records.map((record) => record.id)).toEqual(['c1']);
    expect(await pending).toEqual({
      id: 'c1',
      turnId: 'u1',
      step: 0,
      at: '2026-03-01T10:00:00.000Z',
      model: 'mock:model',
      report: compiled.report,
      messageFingerprints: [expect.stringMatching(/^user:/)],
      agentId: 'helper',
    });
  });

  it('settles after an asynchronous sink has stored the record, and leaves agentId out when none is given', async () => {
    const stored: CallRecord[] = [];
    const writer = createCallLogWriter({
      turnId: 'u1',
      model: 'offline',
      createId: () => 'c1',
      now: () => new Date(0),
      append: async (record) => {
        await Promise.resolve();
        stored.push(record);
      },
    });
    const record = await writer.log(compiled, 2);
    expect(stored).toEqual([record]);
    expect(record.step).toBe(2);
    expect('agentId' in record).toBe(false);
  });
});
