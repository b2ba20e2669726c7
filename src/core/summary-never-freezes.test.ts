import { describe, expect, it } from 'vitest';
import { createCharCounter } from '../testing/index.ts';
import { compileContext } from './compile.ts';
import type { Message } from './message.ts';
import { type CompressionSummary, createExtractiveSummarizer } from './summarizer.ts';

const counter = createCharCounter();

describe('summaries made inside a compile (decision 040)', () => {
  it('never freeze: after 40 turns at window 1,500 every message is sent or summarised, coverage reaching the newest dropped', async () => {
    const history: Message[] = [];
    let stored: CompressionSummary | undefined;
    for (let turn = 0; turn < 40; turn++) {
      history.push({
        id: `u${turn}`,
        role: 'user',
        content: `Question ${turn}: what about table t${turn}? We must keep it.`,
      });
      const compiled = await compileContext(
        {
          history,
          query: `next ${turn}`,
          ...(stored === undefined
            ? {}
            : { compression: { summary: stored.summary, throughMessageId: stored.throughMessageId } }),
        },
        {
          counter,
          window: 1500,
          summarizer: createExtractiveSummarizer({ counter }),
          onSummary: (summary) => {
            stored = summary;
          },
        },
      );
      const dropped = compiled.report.layers.find((layer) => layer.layer === 'history')?.dropped ?? [];
      // Nothing is left over budget without a summary standing for it.
      expect(dropped.filter((entry) => entry.reason.type === 'over-budget')).toHaveLength(0);
      history.push({ id: `a${turn}`, role: 'assistant', content: `Answer ${turn}: t${turn} is fine.` });
    }
    // The coverage kept moving: the summary covers the greater part of 80 messages, not 6.
    const through = history.findIndex((message) => message.id === stored?.throughMessageId);
    expect(through).toBeGreaterThan(40);
    expect(stored?.tokens ?? 0).toBeLessThanOrEqual(150);
  });
});
