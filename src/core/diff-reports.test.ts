import { describe, expect, it } from 'vitest';
import { getTokenCounter } from '../tokenizers/index.ts';
import { createBlock } from './block.ts';
import { compileContext } from './compile.ts';
import { diffReports } from './diff-reports.ts';
import type { Message } from './message.ts';
import { createExtractiveSummarizer } from './summarizer.ts';
import { withTokenCache } from './tokens.ts';

const counter = withTokenCache(getTokenCounter('gpt-4o'));
const turns: Message[] = Array.from({ length: 80 }, (_, index) => ({
  id: `m${index}`,
  role: index % 2 === 0 ? 'user' : 'assistant',
  content: `Message ${index}: we talked about the trip to Lisbon and the museum tickets. ${'More chat. '.repeat(6)}`,
}));
const system = `You are a travel assistant. ${'Always check dates twice. '.repeat(60)}`;

describe('diffReports', () => {
  it('names the added message, the cached prefix and the uncached rest between two turns', async () => {
    const options = { counter, window: 6000 };
    const first = await compileContext(
      { systemPrompt: system, history: turns.slice(0, 20), query: 'q1' },
      options,
    );
    const second = await compileContext(
      { systemPrompt: system, history: turns.slice(0, 21), query: 'q2' },
      options,
    );
    const diff = diffReports(first.report, second.report);
    expect(diff.added.map((block) => block.id)).toContain('history:m20');
    expect(diff.removed.map((block) => block.id)).toContain(first.query?.id);
    expect(diff.cache.prefixMessages).toBeGreaterThan(20);
    expect(diff.cache.cachedTokens + diff.cache.uncachedTokens).toBe(second.report.totalTokens);
    expect(diff.cache.uncachedTokens).toBeLessThan(200);
    expect(diff.totals.deltaTokens).toBe(second.report.totalTokens - first.report.totalTokens);
  });

  it('reports summarised and trimmed blocks with their reasons', async () => {
    const summarizer = createExtractiveSummarizer({ counter });
    const big = createBlock(
      {
        id: 'notes',
        layer: 'knowledge__context',
        source: 'notes',
        content: `# Notes\n\n${'The museum opens at nine. Tickets cost twelve euros. '.repeat(200)}`,
      },
      counter,
    );
    const small = createBlock(
      {
        id: 'notes',
        layer: 'knowledge__context',
        source: 'notes',
        content: '# Notes\n\nThe museum opens at nine.',
      },
      counter,
    );
    const first = await compileContext(
      { systemPrompt: system, history: turns.slice(0, 10), blocks: [small], query: 'q' },
      { counter, window: 6000, summarizer },
    );
    const second = await compileContext(
      { systemPrompt: system, history: turns, blocks: [big], query: 'q' },
      { counter, window: 6000, summarizer },
    );
    const diff = diffReports(first.report, second.report);
    expect(diff.summarised.length).toBeGreaterThan(0);
    expect(diff.summarised[0]?.reason).toEqual({ type: 'summarized', into: 'compression__context' });
    expect(diff.trimmed).toEqual([
      expect.objectContaining({ id: 'notes', layer: 'knowledge__context', fromTokens: big.tokens }),
    ]);
  });
});
