import { describe, expect, it } from 'vitest';
import { getTokenCounter } from '../tokenizers/index.ts';
import { compileContext } from './compile.ts';
import { createStepCompiler } from './compile-step.ts';
import { CtxloomError } from './errors.ts';
import { createHistoryCutStore } from './history-cut.ts';
import type { Message } from './message.ts';
import { withTokenCache } from './tokens.ts';

const counter = withTokenCache(getTokenCounter('gpt-4o'));

/** `turns` user/assistant pairs of ~60 tokens each message. */
function conversation(turns: number): Message[] {
  const messages: Message[] = [];
  for (let turn = 0; turn < turns; turn++) {
    const text = `Turn ${turn}: the scheduler retried job ${turn} after a timeout and logged the latency of every attempt in the audit table.`;
    messages.push({ id: `u${turn}`, role: 'user', content: `${text} Why?` });
    messages.push({ id: `a${turn}`, role: 'assistant', content: `${text} Because.` });
  }
  return messages;
}

const firstSent = (history: readonly Message[]) => history[0]?.id;

describe('compileContext › historyCut', () => {
  it('never sends history before the stored message, and drops it like history that did not fit', async () => {
    const historyCut = createHistoryCutStore('u30');
    const compiled = await compileContext(
      { history: conversation(40), query: 'And now?' },
      { counter, window: 100_000, historyCut },
    );
    expect(firstSent(compiled.history)).toBe('u30');
    const before = compiled.dropped.filter((entry) => entry.block.layer === 'history');
    expect(before).toHaveLength(60);
    expect(before.every((entry) => entry.reason.type === 'over-budget')).toBe(true);
    expect(compiled.report.compaction.some((action) => action.type === 'omitted-notice')).toBe(true);
    expect(historyCut.get()).toBe('u30');
  });

  it('cuts at a turn start with headroom when it must cut, records it, and later calls keep it', async () => {
    const historyCut = createHistoryCutStore();
    const options = { counter, window: 4000, historyCut };
    const history = conversation(80);
    const first = await compileContext({ history, query: 'And now?' }, options);
    const start = firstSent(first.history) as string;
    expect(start).toMatch(/^u/);
    expect(historyCut.get()).toBe(start);
    // The next turns fit after the stored start: nothing before it comes back, nothing more goes.
    for (let turn = 80; turn < 83; turn++) {
      const later = await compileContext({ history: conversation(turn + 1), query: 'And now?' }, options);
      expect(firstSent(later.history)).toBe(start);
    }
  });

  it('is the step compiler default: a step that overflows never brings back earlier history', async () => {
    const history = conversation(60);
    const steps = createStepCompiler({
      request: { history, query: 'Read the logs.' },
      // Little headroom after a cut, so the step's results overflow it.
      options: { counter, window: 5000, historyKeepRatio: 0.95 },
    });
    const step0 = await steps.compile([]);
    // Two tool results of ~1,000 tokens each (under the placeholder threshold): the step overflows.
    const big: Message[] = [0, 1].flatMap((index): Message[] => [
      {
        id: `call${index}`,
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: `c${index}`, toolName: 'read', input: {} }],
      },
      {
        id: `result${index}`,
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: `c${index}`,
            toolName: 'read',
            output: { type: 'text', value: `log line ${index}. `.repeat(250) },
          },
        ],
      },
    ]);
    const step1 = await steps.compile(big);
    const step2 = await steps.compile([]);
    const at = (compiled: typeof step0) =>
      history.findIndex((message) => message.id === firstSent(compiled.history));
    expect(at(step1)).toBeGreaterThan(at(step0));
    expect(at(step2)).toBe(at(step1));
  });

  it('rejects a keep ratio outside (0, 1]', async () => {
    const call = compileContext(
      { history: conversation(2), query: 'x' },
      { counter, window: 4000, historyCut: createHistoryCutStore(), historyKeepRatio: 0 },
    );
    await expect(call).rejects.toBeInstanceOf(CtxloomError);
    await expect(call).rejects.toMatchObject({ code: 'invalid-argument', path: 'historyKeepRatio' });
  });
});
