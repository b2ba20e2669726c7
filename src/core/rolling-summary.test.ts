import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from './message.ts';
import { planHistoryCut } from './plan-history-cut.ts';
import { renderSummary, rollSummary, type SummaryPeriod, uncarriedIds } from './rolling-summary.ts';
import { createExtractiveSummarizer, type Summarizer } from './summarizer.ts';
import { createTokenCounter } from './tokens.ts';

// One token per character: budgets read straight off the test.
const counter = createTokenCounter({ name: 'chars', exact: true, countText: (text) => text.length });
const extractive = createExtractiveSummarizer({ counter });

const messages = (from: number, count: number): Message[] =>
  Array.from({ length: count }, (_, index) => ({
    id: `m${from + index}`,
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: `Fact ${from + index} is about table orders_${from + index}.`,
  }));

describe('rollSummary', () => {
  it('never freezes: each roll covers through the newest passed message and stays under its cap', async () => {
    let periods: SummaryPeriod[] = [];
    let from = 1;
    for (let roll = 0; roll < 12; roll++) {
      const passed = messages(from, 10);
      const rolled = await rollSummary({
        periods,
        messages: passed,
        from,
        capTokens: 1500,
        counter,
        summarizer: extractive,
      });
      periods = rolled.periods;
      from += 10;
      // Contiguous from the first message to the newest one passed.
      expect(periods[0]?.from).toBe(1);
      for (const [index, period] of periods.entries()) {
        const next = periods[index + 1];
        if (next !== undefined) expect(next.from).toBe(period.from + period.count);
      }
      expect(periods.at(-1)?.throughMessageId).toBe(`m${from - 1}`);
      expect(rolled.tokens).toBeLessThanOrEqual(1500);
      expect(rolled.text).toBe(renderSummary(periods));
    }
    // Recent periods in detail, old ones coarser.
    expect(periods[0]?.level).toBeGreaterThan(0);
    expect(periods.at(-1)?.level).toBe(0);
  });

  it('claims only the lines its text carries: every carried id has its line, the rest are uncarried', async () => {
    const passed = messages(1, 40);
    const rolled = await rollSummary({
      periods: [],
      messages: passed,
      from: 1,
      capTokens: 400,
      counter,
      summarizer: extractive,
    });
    const carried = rolled.periods.flatMap((period) => period.carried ?? []);
    expect(carried.length).toBeGreaterThan(0);
    expect(carried.length).toBeLessThan(40);
    for (const id of carried) expect(rolled.text).toContain(`Fact ${id.slice(1)} `);
    const uncarried = uncarriedIds(rolled.periods, passed);
    expect(uncarried.size + carried.length).toBe(40);
    for (const id of uncarried) expect(rolled.text).not.toContain(`Fact ${id.slice(1)} `);
  });

  it('falls back to the extractive summariser when the configured one throws, and says so', async () => {
    const failing: Summarizer = {
      name: 'model down',
      async summarize() {
        throw new Error('model down');
      },
    };
    const rolled = await rollSummary({
      periods: [],
      messages: messages(1, 6),
      from: 1,
      capTokens: 800,
      counter,
      summarizer: failing,
    });
    expect(rolled.failure).toBe('model down');
    expect(rolled.summarizer).toBe('extractive (offline)');
    expect(rolled.text).toContain('Fact 1 ');
  });

  it("rewrites a model's periods with the model when they outgrow the cap; the period claims its whole run", async () => {
    const calls: number[] = [];
    const model: Summarizer = {
      name: 'model',
      async summarize(input) {
        calls.push(input.messages.length);
        return `- ${input.messages.length} items, first ${input.messages[0]?.id}`;
      },
    };
    let periods: SummaryPeriod[] = [];
    for (let from = 1; from <= 60; from += 10) {
      periods = (
        await rollSummary({
          periods,
          messages: messages(from, 10),
          from,
          capTokens: 160,
          counter,
          summarizer: model,
        })
      ).periods;
    }
    expect(calls.length).toBeGreaterThan(6);
    expect(periods.every((period) => period.carried === undefined)).toBe(true);
    expect(uncarriedIds(periods, messages(1, 60)).size).toBe(0);
    expect(periods.at(-1)?.throughMessageId).toBe('m60');
  });

  it('replaces the line of a message curated after it was summarised', async () => {
    const rolled = await rollSummary({
      periods: [],
      messages: messages(1, 4),
      from: 1,
      capTokens: 800,
      counter,
      summarizer: extractive,
    });
    const text = renderSummary(rolled.periods, {
      replace: (id) => (id === 'm2' ? '- assistant: [dismissed]' : id === 'm3' ? null : undefined),
    });
    expect(text).not.toContain('Fact 2 ');
    expect(text).toContain('[dismissed]');
    expect(text).not.toContain('Fact 3 ');
    expect(text).toContain('Fact 4 ');
  });
});

describe('planHistoryCut', () => {
  it('moves nothing while the history fits its room', () => {
    expect(
      planHistoryCut({ live: messages(1, 4), tokens: [10, 10, 10, 10], roomTokens: 40, keepRatio: 0.5 }),
    ).toBe(0);
  });

  it('passes the fewest messages that leave at most keepRatio of the room, starting the rest at a user message', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 200 }), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 0, max: 3000 }),
        fc.double({ min: 0.1, max: 1, noNaN: true }),
        (tokens, room, keep) => {
          const live = messages(1, tokens.length);
          const passing = planHistoryCut({ live, tokens, roomTokens: room, keepRatio: keep });
          const total = tokens.reduce((sum, value) => sum + value, 0);
          if (total <= room) return passing === 0;
          const rest = tokens.slice(passing).reduce((sum, value) => sum + value, 0);
          if (passing === live.length) return true;
          // What stays starts at a user message and fits; one user boundary earlier would not.
          const startsTurn = live[passing]?.role === 'user';
          let earlier = passing - 1;
          while (earlier > 0 && live[earlier]?.role !== 'user') earlier--;
          const earlierRest = tokens.slice(earlier).reduce((sum, value) => sum + value, 0);
          return (
            startsTurn &&
            rest <= Math.floor(room * keep) &&
            (earlier === 0 || earlierRest > Math.floor(room * keep))
          );
        },
      ),
    );
  });
});
