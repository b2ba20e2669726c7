import { describe, expect, it } from 'vitest';
import { createCharCounter } from '../testing/char-counter.ts';
import { LISTED_LONG_HISTORY_DROPS } from './build-report.ts';
import { compileContext } from './compile.ts';
import { formatReport } from './format-report.ts';
import type { Message } from './message.ts';
import { recalledIn, recallOf } from './recall-source.test-support.ts';
import { droppedByReason, droppedCount } from './report.ts';

const counter = createCharCounter();

function turns(count: number): Message[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `m${index}`,
    role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
    content: `turn ${String(index).padStart(4, '0')} `.padEnd(60, 'x'),
  }));
}

describe('a long session’s dropped history in the report', () => {
  it('lists the first dropped messages one by one and the rest as runs, accounting for every cut', async () => {
    const history = turns(3000);
    const { report, dropped } = await compileContext(
      { systemPrompt: 'You help.', history, query: { id: 'q', role: 'user', content: 'go on' } },
      { counter, window: 4000, maxHistoryMessages: 2000 },
    );
    const layer = report.layers.find((entry) => entry.layer === 'history');
    if (layer === undefined) throw new Error('no history layer');
    const sent = layer.kept.length;
    // Every message is either sent or counted among the drops, once.
    expect(droppedCount(layer)).toBe(3000 - sent);
    expect(droppedCount(layer)).toBe(dropped.filter((entry) => entry.block.layer === 'history').length);
    const single = layer.dropped.filter((block) => block.run === undefined);
    const runs = layer.dropped.filter((block) => block.run !== undefined);
    expect(single).toHaveLength(LISTED_LONG_HISTORY_DROPS);
    // The first stage's drops first, one by one, newest first.
    expect(single.every((block) => block.reason.type === 'over-budget')).toBe(true);
    const positions = single.map((block) => Number(block.id.replace('history:m', '')));
    expect(positions).toEqual([...positions].sort((a, b) => b - a));
    // Then runs, one per stage: over budget inside the window, the window's own cut, and the
    // chunked cut's few more — three entries, not 2,900.
    expect(runs.map((block) => block.reason.type)).toEqual(['over-budget', 'history-window', 'over-budget']);
    const windowRun = runs[1];
    expect(windowRun?.run?.count).toBe(1000);
    expect(windowRun?.id).toBe(`${windowRun?.run?.firstId}…${windowRun?.run?.lastId}`);
    const droppedTokens = dropped
      .filter((entry) => entry.block.layer === 'history')
      .reduce((sum, entry) => sum + entry.block.tokens, 0);
    expect(layer.dropped.reduce((sum, block) => sum + block.tokens, 0)).toBe(droppedTokens);
    // The report stays small: what the call log stores per call.
    expect(JSON.stringify(report).length).toBeLessThan(60_000);
    expect(formatReport(report, { color: false })).toContain(`history: `);
  });

  it('lists every dropped message of a short session', async () => {
    const history = turns(60);
    const { report } = await compileContext(
      { systemPrompt: 'You help.', history, query: { id: 'q', role: 'user', content: 'go on' } },
      { counter, window: 1500 },
    );
    const layer = report.layers.find((entry) => entry.layer === 'history');
    expect(layer?.dropped.every((block) => block.run === undefined)).toBe(true);
    expect(layer?.dropped.length).toBe(droppedCount(layer ?? { dropped: [] }));
  });

  it('keeps the covered history one run whatever the summary carries and the recall sends, naming those messages in it', async () => {
    const history = turns(1200);
    // Behind the summary: the first 1,000 messages; its text carries every third of them.
    const through = history[999] as Message;
    const uncarried = new Set(
      history
        .slice(0, 1000)
        .filter((_, index) => index % 3 !== 0)
        .map((message) => message.id),
    );
    // A recall of messages all over the covered history, as a long session's is.
    const recalledIds = [5, 100, 101, 250, 600, 601, 602, 990].map((index) => `m${index}`);
    const recall = recallOf(recalledIds);
    const { report, dropped } = await compileContext(
      {
        systemPrompt: 'You help.',
        history,
        query: { id: 'q', role: 'user', content: 'go on' },
        compression: { summary: 'The story so far.', throughMessageId: through.id, uncarried },
      },
      { counter, window: 40_000, sources: [recall] },
    );
    const layer = report.layers.find((entry) => entry.layer === 'history');
    if (layer === undefined) throw new Error('no history layer');
    const historyDrops = dropped.filter((entry) => entry.block.layer === 'history');
    // What each message's own drop says, tallied, is what the report's entries say.
    const truth = new Map<string, { count: number; tokens: number }>();
    for (const entry of historyDrops) {
      const key = JSON.stringify(entry.reason);
      const tally = truth.get(key) ?? { count: 0, tokens: 0 };
      tally.count++;
      tally.tokens += entry.block.tokens;
      truth.set(key, tally);
    }
    const tallies = droppedByReason(layer);
    expect(
      new Map(
        tallies.map((tally) => [JSON.stringify(tally.reason), { count: tally.count, tokens: tally.tokens }]),
      ),
    ).toEqual(truth);
    expect(truth.get(JSON.stringify({ type: 'recalled', into: 'recall__context' }))?.count).toBe(
      recalledIds.length,
    );
    expect(droppedCount(layer)).toBe(historyDrops.length);
    // The covered history, past the 20 listed one by one, is one run: recallable (most of it),
    // with the summarised and recalled messages named in it — not 600 runs and singles.
    expect(layer.dropped).toHaveLength(LISTED_LONG_HISTORY_DROPS + 1);
    const run = layer.dropped.at(-1);
    expect(run?.reason).toEqual({ type: 'recallable', tool: 'search_history' });
    expect(run?.run?.others?.map((group) => group.reason.type)).toEqual(
      expect.arrayContaining(['summarized', 'recalled']),
    );
    expect(recalledIn(layer.dropped)).toEqual(recalledIds.map((id) => `history:${id}`).sort());
    const text = formatReport(report, { color: false, verbose: true });
    expect(text).toContain(`${recalledIds.length} × history: recalled into recall__context`);
    // The run's own reason says how many of its messages have it, not the run's whole count.
    const others = (run?.run?.others ?? []).reduce((sum, group) => sum + group.ids.length, 0);
    expect(text).toContain(
      `${run?.run?.count} messages ${run?.id} (${run?.tokens.toLocaleString('en-US')} tok) ${(run?.run?.count ?? 0) - others} of them behind the cut, recallable with search_history`,
    );
    expect(text).toMatch(/of them recalled into recall__context \(history:m/);
    expect(text).toMatch(/of them summarised into compression__context \(history:m/);
  });
});
