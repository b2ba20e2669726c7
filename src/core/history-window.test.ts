import { describe, expect, it } from 'vitest';
import { createCharCounter } from '../testing/char-counter.ts';
import { createInMemoryArtifactStore } from './artifact-handles.ts';
import { compileContext } from './compile.ts';
import { createStepCompiler } from './compile-step.ts';
import { diffReports } from './diff-reports.ts';
import { describeReason } from './format-report.ts';
import { historyWindowStart, withWindowDrops } from './history-window.ts';
import type { Message } from './message.ts';
import type { CompileReport } from './report.ts';
import { selectBlocks } from './select.ts';
import { type CompressionSummary, createExtractiveSummarizer } from './summarizer.ts';

const counter = createCharCounter();

function turns(count: number, size = 40): Message[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `m${index}`,
    role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
    content: `turn ${String(index).padStart(3, '0')} `.padEnd(size, 'x'),
  }));
}

/** An assistant tool call and the tool message answering it. */
function toolPair(id: string, text = 'text'): Message[] {
  return [
    {
      id: `${id}:call`,
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: id, toolName: 'read_file', input: { path: 'a.md' } }],
    },
    {
      id: `${id}:result`,
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: id,
          toolName: 'read_file',
          output: { type: 'text', value: text },
        },
      ],
    },
  ];
}

const historyOf = (report: CompileReport) => report.layers.find((layer) => layer.layer === 'history');
const ids = (messages: readonly Message[]) => messages.map((message) => message.id);
const windowReason = (maxMessages: number) => ({ type: 'history-window' as const, maxMessages });

describe('historyWindowStart', () => {
  it('starts at the newest n messages, and past a tool result whose call is older', () => {
    const messages = [...turns(2), ...toolPair('c1'), ...turns(2)];
    expect(historyWindowStart(messages, undefined)).toBe(0);
    expect(historyWindowStart(messages, 6)).toBe(0);
    expect(historyWindowStart(messages, 4)).toBe(2); // on the call: call and result stay
    expect(historyWindowStart(messages, 3)).toBe(4); // on the result: moves past it
    expect(historyWindowStart(messages, 0)).toBe(6);
  });
});

describe('maxHistoryMessages', () => {
  it('sends the newest n messages and reports the older ones dropped with reason history-window', async () => {
    const history = turns(10);
    const compiled = await compileContext(
      { history, query: 'next?' },
      { counter, window: 10_000, maxHistoryMessages: 4 },
    );
    expect(ids(compiled.history)).toEqual(['m6', 'm7', 'm8', 'm9']);
    const dropped = historyOf(compiled.report)?.dropped ?? [];
    // Newest first, like every history drop; each with the window as its reason.
    expect(dropped.map((block) => block.id)).toEqual(
      ['m5', 'm4', 'm3', 'm2', 'm1', 'm0'].map((id) => `history:${id}`),
    );
    for (const block of dropped) expect(block.reason).toEqual(windowReason(4));
    expect(describeReason(dropped[0]?.reason ?? windowReason(0))).toBe(
      'outside the history window (last 4 messages)',
    );
    // Nothing stands in for what the window left out: no summary, no omission notice.
    expect(compiled.report.compaction).toEqual([]);
    expect(compiled.contexts.compression__context).toBeUndefined();
    expect(compiled.report.totalTokens).toBe(counter.countMessages(compiled.messages));
  });

  it('never splits a tool call from its results', async () => {
    const history = [...turns(2), ...toolPair('c1'), ...turns(2)];
    const onResult = await compileContext({ history }, { counter, window: 10_000, maxHistoryMessages: 3 });
    expect(ids(onResult.history)).toEqual(['m0', 'm1']);
    expect(historyOf(onResult.report)?.dropped.map((block) => block.id)).toEqual([
      'history:c1:result',
      'history:c1:call',
      'history:m1',
      'history:m0',
    ]);
    const onCall = await compileContext({ history }, { counter, window: 10_000, maxHistoryMessages: 4 });
    expect(ids(onCall.history)).toEqual(['c1:call', 'c1:result', 'm0', 'm1']);
  });

  it('keeps no tool output aside as an artifact outside the window: nothing of it is sent', async () => {
    const history = [...toolPair('c1', 'x'.repeat(2000)), ...turns(4)];
    const options = { counter, window: 10_000, toolResults: { store: createInMemoryArtifactStore() } };
    const whole = await compileContext({ history, query: 'q' }, options);
    expect(whole.report.compaction.map((action) => action.type)).toEqual(['placeholder']);
    const windowed = await compileContext({ history, query: 'q' }, { ...options, maxHistoryMessages: 4 });
    expect(windowed.report.compaction).toEqual([]);
    expect(ids(windowed.history)).toEqual(['m0', 'm1', 'm2', 'm3']);
  });

  it('counts the window in the history layer demand, and lists the layer when the window leaves nothing', () => {
    const history = [
      { id: 'history:m0', tokens: 30 },
      { id: 'history:m1', tokens: 20 },
      { id: 'history:m2', tokens: 10 },
    ].map((entry) => ({
      ...entry,
      layer: 'history',
      source: 'history',
      content: entry.id,
      priority: 0.5,
      fingerprint: entry.id,
      metadata: {},
    }));
    const select = (blocks: typeof history) =>
      selectBlocks({ blocks, plan: { allocations: { history: 100 }, unallocated: 0 }, pinnedBudget: 0 });
    const selection = withWindowDrops(select(history.slice(2)), history.slice(0, 2), 1);
    expect(selection.layers).toEqual([
      { layer: 'history', grantTokens: 100, usedTokens: 10, demandTokens: 60 },
    ]);
    expect(selection.dropped.map((entry) => [entry.block.id, entry.reason.type])).toEqual([
      ['history:m1', 'history-window'],
      ['history:m0', 'history-window'],
    ]);
    const empty = withWindowDrops(select([]), history, 0);
    expect(empty.layers).toEqual([{ layer: 'history', grantTokens: 0, usedTokens: 0, demandTokens: 60 }]);
  });

  it('applies the same window on every step of a tool loop; the steps never count', async () => {
    const steps = createStepCompiler({
      request: { history: turns(12), query: 'read it' },
      options: { counter, window: 10_000, maxHistoryMessages: 5 },
    });
    const first = await steps.compile();
    const loop = [...toolPair('s1'), ...toolPair('s2')];
    const later = await steps.compile(loop);
    for (const compiled of [first, later]) {
      expect(ids(compiled.history)).toEqual(['m7', 'm8', 'm9', 'm10', 'm11']);
      const dropped = historyOf(compiled.report)?.dropped ?? [];
      expect(dropped).toHaveLength(7);
      expect(dropped.every((block) => block.reason.type === 'history-window')).toBe(true);
    }
    expect(ids(later.steps)).toEqual(ids(loop));
  });

  it('reports messages the stored summary covers as summarized, wherever they sit', async () => {
    const history = turns(10);
    const before = await compileContext(
      { history, compression: { summary: 'Earlier: m0–m2.', throughMessageId: 'm2' } },
      { counter, window: 10_000, maxHistoryMessages: 4 },
    );
    expect(ids(before.history)).toEqual(['m6', 'm7', 'm8', 'm9']);
    const reasons = new Map(historyOf(before.report)?.dropped.map((block) => [block.id, block.reason.type]));
    expect([...reasons.entries()].sort()).toEqual([
      ['history:m0', 'summarized'],
      ['history:m1', 'summarized'],
      ['history:m2', 'summarized'],
      ['history:m3', 'history-window'],
      ['history:m4', 'history-window'],
      ['history:m5', 'history-window'],
    ]);
    const inside = await compileContext(
      { history, compression: { summary: 'Earlier: m0–m7.', throughMessageId: 'm7' } },
      { counter, window: 10_000, maxHistoryMessages: 4 },
    );
    expect(ids(inside.history)).toEqual(['m8', 'm9']);
    expect(historyOf(inside.report)?.dropped.every((block) => block.reason.type === 'summarized')).toBe(true);
  });

  it('summarises only what the budget cut inside the window, and persists no coverage past the window', async () => {
    const summaries: CompressionSummary[] = [];
    const options = {
      counter,
      window: 2400,
      summarizer: createExtractiveSummarizer({ counter }),
      onSummary: (summary: CompressionSummary) => {
        summaries.push(summary);
      },
    };
    // 50 of 60 messages in the window: 2,000 tokens, more than the 1,800 the budget holds.
    const compiled = await compileContext(
      { history: turns(60), query: 'q1' },
      { ...options, maxHistoryMessages: 50 },
    );
    const dropped = historyOf(compiled.report)?.dropped ?? [];
    const windowed = dropped.filter((block) => block.reason.type === 'history-window');
    expect(windowed.map((block) => block.id)).toEqual(
      Array.from({ length: 10 }, (_, index) => `history:m${9 - index}`),
    );
    const summarized = compiled.report.compaction.find((action) => action.type === 'summarized');
    expect(summarized).toBeDefined();
    // The summary stands for budget drops inside the window only, and the report says so.
    const inSummary = dropped.filter((block) => block.reason.type === 'summarized').map((block) => block.id);
    expect(inSummary.length).toBe(summarized?.type === 'summarized' ? summarized.messages : -1);
    expect(inSummary.every((id) => Number(id.slice('history:m'.length)) >= 10)).toBe(true);
    // A persisted summary would claim everything before its last message, the window's drops too.
    expect(summaries).toEqual([]);
    // Without the window the same budget cut is summarised and persisted as before.
    await compileContext({ history: turns(60).slice(10), query: 'q1' }, options);
    expect(summaries).toHaveLength(1);
  });

  it('leaves a window-only cut alone: no chunk widening, no retry of the steps', async () => {
    const compiled = await compileContext(
      { history: turns(30), query: 'q' },
      { counter, window: 2000, historyChunkRatio: 0.25, maxHistoryMessages: 7 },
    );
    expect(compiled.history).toHaveLength(7);
    expect(compiled.report.compaction).toEqual([]);
  });

  it('shows window drops as removed in a diff of two calls', async () => {
    const options = { counter, window: 10_000, maxHistoryMessages: 3 };
    const previous = await compileContext({ history: turns(4) }, options);
    const current = await compileContext({ history: turns(5) }, options);
    const diff = diffReports(previous.report, current.report);
    expect(diff.removed.map((block) => [block.id, block.reason])).toEqual([['history:m1', windowReason(3)]]);
  });

  it('refuses a window that is not an integer ≥ 0', async () => {
    await expect(
      compileContext({ history: turns(2) }, { counter, window: 1000, maxHistoryMessages: 1.5 }),
    ).rejects.toMatchObject({ code: 'invalid-argument', path: 'maxHistoryMessages' });
  });
});
