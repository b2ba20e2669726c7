import { afterEach, describe, expect, it, vi } from 'vitest';
import type { QueryToolOutput } from '../../src/retrieval/index.ts';
import { expectQuotedWhole } from '../doc-examples.test-support.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('docs/retrieval.md', () => {
  it('quotes retrieve.ts whole', async () => {
    await expectQuotedWhole('docs/retrieval.md', ['examples/retrieval/retrieve.ts']);
  });

  it('compiles L1 as history, L2 and retrieval (memory L4 + the knowledge base) as knowledge, offline', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const { compiled, tools } = await import('./retrieve.ts');
    const kept = (layer: string) =>
      compiled.report.layers.find((entry) => entry.layer === layer)?.kept.map((block) => block.id) ?? [];
    expect(kept('history')).toEqual(['L1_recent:m3', 'L1_recent:m4']);
    const knowledge = kept('knowledge__context');
    expect(knowledge[0]).toBe('L2_important:m1'); // the requirement, most important first
    expect(knowledge).toContain('handbook:leave#1');
    expect(knowledge.some((id) => id.startsWith('memory:'))).toBe(true); // an L4 hit on "August"
    expect(compiled.messages.at(-1)?.content).toBe('How many days of paid leave can I take in August?');
    for (const layer of compiled.report.layers) expect(log).toHaveBeenCalledWith(layer.layer, layer.tokens);
    // The active channel, called as a model would: the passage with its provenance; lexical, so
    // the best hit's vector score is 1.
    const answer = (await tools.query.execute?.(
      { query: 'paid leave carry over' },
      { toolCallId: 'call-1', messages: [], context: {} },
    )) as QueryToolOutput;
    expect(answer.results[0]).toMatchObject({
      id: 'leave#1',
      origin: 'handbook',
      provenance: { file: 'hr.md', startLine: 4, endLine: 9 },
      metadata: { signals: { 'vector-score': 1 } },
    });
  });
});
