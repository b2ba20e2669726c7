import { describe, expect, it } from 'vitest';
import { createCharCounter } from '../testing/char-counter.ts';
import { createBlock } from './block.ts';
import { compileContext } from './compile.ts';
import { layerOf } from './compose.ts';
import type { Message } from './message.ts';
import { createOrchestrator } from './orchestrator.ts';
import type { ContextSource } from './source.ts';
import { type CompressionSummary, createExtractiveSummarizer } from './summarizer.ts';

const counter = createCharCounter();

function turns(count: number, size = 40): Message[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `m${index}`,
    role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
    content: `turn ${String(index).padStart(3, '0')} `.padEnd(size, 'x'),
  }));
}

function source(name: string, layer: string, contents: string[], priority = 0.5): ContextSource {
  return {
    name,
    layer,
    priority,
    async collect(request) {
      return contents.map((content, index) =>
        createBlock(
          { id: `${name}-${index}`, layer, source: name, content, priority: 1 - index / 10 },
          request.counter,
        ),
      );
    },
  };
}

describe('compileContext', () => {
  it('reports exactly what it emits and stays within the input budget', async () => {
    const { messages, report } = await compileContext(
      { systemPrompt: 'You are a tutor.', history: turns(50), query: 'What next?' },
      { counter, window: 1000 },
    );
    expect(report.totalTokens).toBe(counter.countMessages(messages));
    expect(report.totalTokens).toBeLessThanOrEqual(report.inputBudget);
    expect(report.inputBudget).toBe(750);
    expect(report.fits).toBe(true);
    expect(messages.at(-1)?.content).toBe('What next?');
    const historyLayer = report.layers.find((layer) => layer.layer === 'history');
    expect(historyLayer?.dropped.length).toBeGreaterThan(0);
    // Newest turns survive: the dropped ones are all older than the kept ones.
    const keptIndexes = messages
      .filter((message) => layerOf(message) === 'history')
      .map((message) => Number(message.id.slice(1)));
    const droppedIndexes = (historyLayer?.dropped ?? []).map((block) =>
      Number(block.id.replace('history:m', '')),
    );
    expect(Math.max(...droppedIndexes)).toBeLessThan(Math.min(...keptIndexes));
  });

  it('keeps two history turns with the same text (history is never deduplicated)', async () => {
    const history: Message[] = [
      { id: 'u1', role: 'user', content: 'yes' },
      { id: 'a1', role: 'assistant', content: 'Shall I continue?' },
      { id: 'u2', role: 'user', content: 'yes' },
    ];
    const compiled = await compileContext({ history, query: 'q' }, { counter, window: 1000 });
    expect(compiled.history.map((message) => message.id)).toEqual(['u1', 'a1', 'u2']);
  });

  it('outputs contexts whose keys all end in __context', async () => {
    const compiled = await compileContext(
      { systemPrompt: 's', contexts: { todo__context: '- [ ] read chapter 2' }, query: 'q' },
      {
        counter,
        window: 2000,
        sources: [source('retrieval', 'knowledge__context', ['Raft elects a leader.'])],
      },
    );
    expect(Object.keys(compiled.contexts).sort()).toEqual(['knowledge__context', 'todo__context']);
    for (const key of Object.keys(compiled.contexts)) expect(key.endsWith('__context')).toBe(true);
  });

  it('has one path for the query: a query already at the end of the history is not added again', async () => {
    const history = turns(4);
    const query: Message = { id: 'u-next', role: 'user', content: 'next question' };
    const compiled = await compileContext(
      { history: [...history, query], query },
      { counter, window: 10_000 },
    );
    expect(compiled.messages.filter((message) => message.id === 'u-next')).toHaveLength(1);
    expect(compiled.messages.at(-1)?.id).toBe('u-next');
  });

  it('sends the summary to compression__context and, once persisted, skips what it covers', async () => {
    const saved: CompressionSummary[] = [];
    const options = {
      counter,
      window: 2400,
      summarizer: createExtractiveSummarizer({ counter }),
      onSummary: (summary: CompressionSummary) => {
        saved.push(summary);
      },
    };
    const history = turns(60);
    const first = await compileContext({ history, query: 'q1' }, options);
    expect(saved).toHaveLength(1);
    const summary = saved[0] as CompressionSummary;
    expect(first.contexts.compression__context).toBe(summary.summary);
    expect(first.messages.some((message) => layerOf(message) === 'compression__context')).toBe(true);
    expect(first.report.compaction.some((action) => action.type === 'summarized')).toBe(true);
    const dropped = first.report.layers.find((layer) => layer.layer === 'history')?.dropped ?? [];
    const summarizedIds = dropped
      .filter((block) => block.reason.type === 'summarized')
      .map((block) => block.id);
    expect(summarizedIds.sort()).toEqual(summary.coveredMessageIds.map((id) => `history:${id}`).sort());
    expect(summary.throughMessageId).toBe(summary.coveredMessageIds.at(-1));

    // Resume from a checkpoint: the persisted summary comes back, covered messages stay out.
    const resumed = await compileContext(
      {
        history,
        query: 'q1',
        compression: { summary: summary.summary, throughMessageId: summary.throughMessageId },
      },
      { ...options, onSummary: () => {} },
    );
    const ids = resumed.messages.map((message) => message.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const covered of summary.coveredMessageIds) expect(ids).not.toContain(covered);
    expect(resumed.contexts.compression__context).toMatch(/^Summary of messages 1–\d+:/);
  });

  it('trims the best block that did not fit at a sentence boundary and marks it', async () => {
    const long = Array.from({ length: 30 }, (_, index) => `Sentence number ${index} explains a detail.`).join(
      ' ',
    );
    const compiled = await compileContext(
      { query: 'q' },
      {
        counter,
        window: 800,
        outputReserveRatio: 0.5,
        sources: [source('retrieval', 'knowledge__context', [long])],
        allocationRatios: { retrieval: 0.5 },
      },
    );
    const knowledge = compiled.contexts.knowledge__context ?? '';
    expect(knowledge.endsWith('[… trimmed]')).toBe(true);
    expect(knowledge.replace('\n[… trimmed]', '')).toMatch(/detail\.$/);
    const action = compiled.report.compaction.find((entry) => entry.type === 'trimmed');
    expect(action).toMatchObject({ type: 'trimmed', blockId: 'retrieval-0', boundary: 'sentence' });
    expect(compiled.report.totalTokens).toBeLessThanOrEqual(compiled.report.inputBudget);
  });

  it('keeps a tool call and its result together and lists dropped tool errors', async () => {
    const history: Message[] = [
      { id: 'u0', role: 'user', content: 'read the file please' },
      {
        id: 'a0',
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 't1', toolName: 'read_file', input: { path: 'missing.md' } },
        ],
      },
      {
        id: 'r0',
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 't1',
            toolName: 'read_file',
            output: { type: 'error-text', value: 'not found: missing.md' },
          },
        ],
      },
      ...turns(20, 60).map((message, index) => ({ ...message, id: `late${index}` })),
    ];
    const compiled = await compileContext({ history, query: 'q' }, { counter, window: 1400 });
    const ids = compiled.messages.map((message) => message.id);
    expect(ids.includes('a0')).toBe(ids.includes('r0'));
    if (!ids.includes('r0')) {
      expect(compiled.contexts.compression__context).toContain('read_file: not found: missing.md');
    }
  });

  it('reports a failing source without failing the call, and skips shared layers when sharing is off', async () => {
    const broken: ContextSource = {
      name: 'kb',
      layer: 'knowledge__context',
      priority: 0.5,
      collect: async () => {
        throw new Error('connection refused');
      },
    };
    const compiled = await compileContext(
      { query: 'q', contexts: { framework__context: 'Answer in JSON.', todo__context: 'todo' } },
      {
        counter,
        window: 1000,
        sources: [broken, source('exp', 'experience__context', ['lesson'])],
        enableShareContext: false,
      },
    );
    expect(compiled.report.sources.find((entry) => entry.name === 'kb')?.skipped).toBe('share-disabled');
    expect(compiled.contexts.framework__context).toBe('Answer in JSON.');
    expect(compiled.contexts.todo__context).toBeUndefined();
    const shared = await compileContext({ query: 'q' }, { counter, window: 1000, sources: [broken] });
    expect(shared.report.sources[0]?.error).toBe('connection refused');
  });

  it('returns over-budget as data when never-compacted layers alone overflow', async () => {
    const compiled = await compileContext(
      { systemPrompt: 'x'.repeat(900), query: 'q' },
      { counter, window: 1000 },
    );
    expect(compiled.report.fits).toBe(false);
    expect(compiled.report.overflowTokens).toBe(compiled.report.totalTokens - compiled.report.inputBudget);
  });

  it('lets a recompile after one new message count only that message', async () => {
    let calls = 0;
    const spy = {
      ...counter,
      countText: (text: string) => {
        calls++;
        return text.length;
      },
    };
    const orchestrator = createOrchestrator({ counter: spy, window: 100_000 });
    const history = turns(200, 80);
    await orchestrator.build({ systemPrompt: 'You are a tutor.', history, query: 'first' });
    const before = orchestrator.counter.stats().misses;
    history.push({ id: 'new', role: 'user', content: 'one more message that is new and long enough' });
    await orchestrator.build({ systemPrompt: 'You are a tutor.', history, query: 'second question here' });
    const misses = orchestrator.counter.stats().misses - before;
    expect(misses).toBeLessThanOrEqual(3);
    expect(calls).toBeGreaterThan(0);
  });
});
