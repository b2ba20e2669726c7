import { describe, expect, it } from 'vitest';
import { getTokenCounter } from '../tokenizers/index.ts';
import { readArtifact } from './artifact-pages.ts';
import { createBlock } from './block.ts';
import { compileContext } from './compile.ts';
import { createStepCompiler } from './compile-step.ts';
import type { Message } from './message.ts';
import type { ContextSource } from './source.ts';
import type { Summarizer } from './summarizer.ts';
import { withTokenCache } from './tokens.ts';

const counter = withTokenCache(getTokenCounter('gpt-4o'));
const readFile = {
  name: 'read_file',
  description: 'Read a file of the workspace',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

function fileText(name: string, paragraphs: number): string {
  return Array.from(
    { length: paragraphs },
    (_, index) =>
      `## ${name} section ${index}\nThe ${name} module handles request ${index} and logs its latency.`,
  ).join('\n\n');
}

function toolStep(index: number, text: string): Message[] {
  return [
    {
      id: `a${index}`,
      role: 'assistant',
      content: [
        {
          type: 'tool-call',
          toolCallId: `c${index}`,
          toolName: 'read_file',
          input: { path: `f${index}.md` },
        },
      ],
    },
    {
      id: `t${index}`,
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: `c${index}`,
          toolName: 'read_file',
          output: { type: 'text', value: text },
        },
      ],
    },
  ];
}

describe('createStepCompiler', () => {
  it('keeps every call of a tool loop under the budget, counting tool schemas and reporting each step', async () => {
    const steps = createStepCompiler({
      request: { systemPrompt: 'You are a careful reviewer.', query: 'Review the four modules.' },
      options: { counter, window: 4000, tools: [readFile] },
    });
    const produced: Message[] = [];
    for (let call = 0; call < 5; call++) {
      const compiled = await steps.compile(produced);
      const sent = counter.countMessages(compiled.messages) + compiled.report.tools!.tokens;
      expect(compiled.report.totalTokens).toBe(sent);
      expect(sent).toBeLessThanOrEqual(4000 - compiled.maxOutputTokens);
      expect(compiled.maxOutputTokens).toBe(1000);
      expect(compiled.report.tools?.names).toEqual(['read_file']);
      expect(compiled.report.tools?.tokens).toBeGreaterThan(20);
      produced.push(...toolStep(call, fileText(`m${call}`, 40)));
    }
    expect(steps.reports).toHaveLength(5);
    // The query is sent once, before the tool loop's messages.
    const last = await steps.compile(produced);
    const layers = last.messages.map((message) => message.metadata?.layer);
    expect(layers.filter((layer) => layer === 'query')).toHaveLength(1);
    expect(layers.indexOf('query')).toBeLessThan(layers.lastIndexOf('history'));
  });

  it('replaces an oversized tool output by a placeholder naming a handle the model can re-open', async () => {
    const big = fileText('billing', 120);
    const steps = createStepCompiler({
      request: { query: 'Summarise billing.md' },
      options: { counter, window: 4000 },
    });
    const compiled = await steps.compile(toolStep(0, big));
    const action = compiled.report.compaction.find((entry) => entry.type === 'placeholder');
    expect(action).toMatchObject({ type: 'placeholder', toolName: 'read_file', reason: 'oversized' });
    const handle = action?.type === 'placeholder' ? action.handle : '';
    const sentTool = compiled.steps.find((message) => message.role === 'tool');
    expect(JSON.stringify(sentTool?.content)).toContain(handle);
    // Its pages fit what the call left, in the call's tokens, and together are the output.
    const room = compiled.report.inputBudget - compiled.report.totalTokens;
    const whole = readArtifact(steps.store, { handle });
    expect(whole.tokens).toBeLessThanOrEqual(room);
    expect([whole.text, whole.nextOffset]).toEqual([big, undefined]);
    let read = '';
    for (let offset: number | undefined = 0; offset !== undefined; ) {
      const page = readArtifact(steps.store, { handle, offset, maxTokens: 400 });
      expect(page.tokens).toBeLessThanOrEqual(400);
      read += page.text;
      offset = page.nextOffset;
    }
    expect(read).toBe(big);
  });

  it('keeps a tool call and its result together, and earlier turns’ outputs as placeholders', async () => {
    const history: Message[] = [
      { id: 'u0', role: 'user', content: 'Read f9.md' },
      ...toolStep(9, fileText('old', 30)),
      { id: 'r0', role: 'assistant', content: 'Done reading.' },
    ];
    const compiled = await compileContext(
      { history, query: 'And now?' },
      {
        counter,
        window: 8000,
        toolResults: { store: createStepCompiler({ request: {}, options: { counter } }).store },
      },
    );
    expect(compiled.report.compaction).toContainEqual(
      expect.objectContaining({ type: 'placeholder', reason: 'earlier-turn', blockId: 'history:t9' }),
    );
  });
});

describe('compileContext correctness', () => {
  it('sends a memory entry reached through several sources once, and counts fixed-layer sources', async () => {
    const entry = (source: string, layer: string, content: string): ContextSource => ({
      name: source,
      layer,
      priority: 0.5,
      async collect(request) {
        return [
          createBlock(
            { id: `${source}:e1`, layer, source, content, metadata: { messageId: 'e1' } },
            request.counter,
          ),
        ];
      },
    });
    const guide: ContextSource = {
      name: 'tool',
      layer: 'framework__context',
      priority: 0.7,
      async collect(request) {
        return [
          createBlock(
            { id: 'tool:grep', layer: 'framework__context', source: 'tool', content: 'Tool grep.' },
            request.counter,
          ),
        ];
      },
    };
    const compiled = await compileContext(
      { query: 'Which table?' },
      {
        counter,
        window: 4000,
        sources: [
          entry('l2', 'knowledge__context', '[decision] Use dw.orders.'),
          entry('inherited', 'knowledge__context', '(from planner) Use dw.orders.'),
          entry('retrieval', 'knowledge__context', 'Use dw.orders'),
          guide,
        ],
      },
    );
    expect((compiled.contexts.knowledge__context ?? '').match(/dw\.orders/gu)).toHaveLength(1);
    const tool = compiled.report.sources.find((source) => source.name === 'tool');
    expect(tool).toMatchObject({ keptBlocks: 1, returnedBlocks: 1 });
    expect(tool?.keptTokens).toBeGreaterThan(0);
  });

  it('sends a string query equal to the last history message once, with a warning', async () => {
    const history: Message[] = [
      { id: 'u1', role: 'user', content: 'hello there' },
      { id: 'a1', role: 'assistant', content: 'hi' },
      { id: 'u2', role: 'user', content: 'What is Raft?' },
    ];
    const compiled = await compileContext({ history, query: 'What is Raft?' }, { counter, window: 4000 });
    const texts = compiled.messages.map((message) => message.content);
    expect(texts.filter((text) => text === 'What is Raft?')).toHaveLength(1);
    expect(compiled.report.warnings?.[0]?.code).toBe('query-repeated');
  });

  it('keeps an earlier message whose id the query reuses, and sends the query under a fresh id', async () => {
    const query: Message = { id: 'q', role: 'user', content: 'Why?' };
    const history: Message[] = [query, { id: 'a', role: 'assistant', content: 'Because.' }];
    const compiled = await compileContext({ history, query }, { counter, window: 4000 });
    expect(compiled.messages.map((message) => message.id).slice(-3)).toEqual(['q', 'a', 'q:2']);
    expect(compiled.query?.id).toBe('q:2');
    expect(compiled.report.warnings?.[0]?.code).toBe('query-id-taken');
  });

  it('falls back to the extractive summariser when the summariser throws, and says so', async () => {
    const failing: Summarizer = {
      name: 'model test:broken',
      summarize: async () => {
        throw new Error('rate limited');
      },
    };
    const history: Message[] = Array.from({ length: 40 }, (_, index) => ({
      id: `m${index}`,
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: `Turn ${index}: we decided to use table dw.orders v2.5 and must keep 3.5% margin. ${'More words here. '.repeat(10)}`,
    }));
    const compiled = await compileContext(
      { history, query: 'Next?' },
      { counter, window: 2000, summarizer: failing },
    );
    expect(compiled.report.compaction).toContainEqual(
      expect.objectContaining({
        type: 'summarizer-failed',
        summarizer: 'model test:broken',
        error: 'rate limited',
      }),
    );
    expect(compiled.report.compaction).toContainEqual(
      expect.objectContaining({ type: 'summarized', summarizer: 'extractive (offline)' }),
    );
    const summary = compiled.contexts.compression__context ?? '';
    expect(summary).toContain('dw.orders v2.5');
    expect(summary).toContain('3.5%');
  });

  it('accounts for every history message: sent, summarised, or named in the notice', async () => {
    const history: Message[] = Array.from({ length: 24 }, (_, index) => ({
      id: `m${index}`,
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: `Message ${index}. ${'Some filler text for the window. '.repeat(6)}`,
    }));
    const compiled = await compileContext({ history, query: 'Go on.' }, { counter, window: 1500 });
    const sent = new Set(compiled.history.map((message) => message.id));
    const action = compiled.report.compaction.find((entry) => entry.type === 'omitted-notice');
    const omitted = action?.type === 'omitted-notice' ? action.messages : 0;
    expect(sent.size + omitted).toBe(history.length);
  });

  it('drops history in chunks so the kept prefix stays put for several turns', async () => {
    const all: Message[] = Array.from({ length: 80 }, (_, index) => ({
      id: `m${index}`,
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: `Message ${index}: ${'a sentence of chat. '.repeat(8)}`,
    }));
    const firstKept = async (count: number, ratio: number) => {
      const compiled = await compileContext(
        { history: all.slice(0, count), query: `q${count}` },
        { counter, window: 3000, historyChunkRatio: ratio },
      );
      expect(compiled.report.fits).toBe(true);
      return compiled.history[0]?.id;
    };
    const chunked = new Set<string | undefined>();
    const naive = new Set<string | undefined>();
    for (let count = 50; count < 70; count += 2) {
      chunked.add(await firstKept(count, 0.25));
      naive.add(await firstKept(count, 0));
    }
    expect(naive.size).toBe(10);
    expect(chunked.size).toBeLessThanOrEqual(4);
  });

  it.each([
    { case: 'alone', toolGroup: false, other: false },
    { case: 'after another compile of its messages', toolGroup: false, other: true },
    { case: 'with a tool group, after another compile', toolGroup: true, other: true },
  ])(
    'sends a frozen history as its first compile counted it: a message changed in place is sent and counted at its old value ($case)',
    async ({ toolGroup, other }) => {
      const history: Message[] = Array.from({ length: 40 }, (_, index) => ({
        id: `h${index}`,
        role: index % 2 === 0 ? 'user' : 'assistant',
        content: `Turn ${index}: the deploy of service ${index} went out on schedule.`,
      }));
      if (toolGroup) history.splice(10, 0, ...toolStep(9, fileText('earlier', 2)));
      const steps = createStepCompiler({
        request: { systemPrompt: 'You are a careful reviewer.', history, query: 'Which deploys slipped?' },
        options: { counter, window: 16_000, tools: [readFile] },
      });
      const first = await steps.compile([]);
      // Against the Message contract (replace a message in a new array to change it).
      (history[3] as Message).content =
        'Turn 3: this deploy slipped by two days, and the rollback took another hour.';
      // Another compile of the same objects tags the changed message anew (the step after it
      // then carries no copy over from the step before).
      if (other) await compileContext({ history, query: 'What changed?' }, { counter, window: 16_000 });
      const produced = toolStep(0, fileText('deploys', 3));
      for (const compiled of [await steps.compile(produced.slice(0, 1)), await steps.compile(produced)]) {
        // What is sent is what the report counts: the message as the first compile took it.
        const sent = counter.countMessages(compiled.messages) + (compiled.report.tools?.tokens ?? 0);
        expect(compiled.report.totalTokens).toBe(sent);
        const copy = compiled.messages.find((message) => message.id === 'h3');
        expect(copy?.content).toBe(first.messages.find((message) => message.id === 'h3')?.content);
        expect(copy?.content).toContain('went out on schedule');
      }
    },
  );
});
