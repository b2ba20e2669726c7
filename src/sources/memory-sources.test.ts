import { describe, expect, it } from 'vitest';
import { compileContext, type Message } from '../core/index.ts';
import { createCharCounter } from '../testing/index.ts';
import { createInheritedSource } from './inherited-source.ts';
import { createL1RecentSource } from './l1-recent-source.ts';
import { createL2ImportantSource } from './l2-important-source.ts';
import { openMemoryStore } from './memory-store.ts';
import { makeBudget, makeRequest } from './test-request.test-support.ts';
import { createUnifiedRetrievalSource } from './unified-retrieval-source.ts';

async function memoryWith(messages: Message[]) {
  const memory = openMemoryStore({ agentId: 'parent', sessionId: 's' });
  await memory.append(messages);
  return memory;
}

const conversation: Message[] = [
  { id: 'u1', role: 'user', content: 'first question' },
  {
    id: 'a1',
    role: 'assistant',
    content: [{ type: 'tool-call', toolCallId: 't1', toolName: 'lookup', input: { q: 'x' } }],
  },
  {
    id: 'r1',
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: 't1', toolName: 'lookup', output: { type: 'text', value: 'found' } },
    ],
  },
  { id: 'u2', role: 'user', content: 'We decided: the API must use JSON' },
  { id: 'a2', role: 'assistant', content: 'noted' },
];

describe('createL1RecentSource', () => {
  it('returns the newest whole turns that fit, as grouped history blocks', async () => {
    const source = createL1RecentSource({ memory: await memoryWith(conversation) });
    const blocks = await source.collect(makeRequest('q'), makeBudget(60));
    expect(blocks.map((block) => block.metadata.message && (block.metadata.message as Message).id)).toEqual([
      'u2',
      'a2',
    ]);
    expect(new Set(blocks.map((block) => block.group)).size).toBe(1);
    expect(blocks.every((block) => block.layer === 'history')).toBe(true);
  });

  it('keeps a tool call with its result or drops both', async () => {
    const source = createL1RecentSource({ memory: await memoryWith(conversation) });
    for (const maxTokens of [10, 45, 60, 80, 200]) {
      const ids = (await source.collect(makeRequest('q'), makeBudget(maxTokens))).map((block) => block.id);
      expect(ids.includes('L1_recent:a1')).toBe(ids.includes('L1_recent:r1'));
      expect(
        (await source.collect(makeRequest('q'), makeBudget(maxTokens))).reduce(
          (sum, block) => sum + block.tokens,
          0,
        ),
      ).toBeLessThanOrEqual(maxTokens);
    }
  });

  it('skips messages the request history already carries', async () => {
    const source = createL1RecentSource({ memory: await memoryWith(conversation) });
    const blocks = await source.collect(makeRequest('q', conversation.slice(3)), makeBudget(1000));
    expect(blocks.map((block) => block.id)).toEqual(['L1_recent:u1', 'L1_recent:a1', 'L1_recent:r1']);
  });
});

describe('createL2ImportantSource', () => {
  it('fills knowledge__context with important entries and their reasons', async () => {
    const blocks = await createL2ImportantSource({ memory: await memoryWith(conversation) }).collect(
      makeRequest('q'),
      makeBudget(500),
    );
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).toMatchObject({ layer: 'knowledge__context', source: 'L2_important', priority: 0.8 });
    expect(blocks[0]?.content).toBe('[decision, requirement] user: We decided: the API must use JSON');
  });

  it('returns nothing when the budget is too small', async () => {
    expect(
      await createL2ImportantSource({ memory: await memoryWith(conversation) }).collect(
        makeRequest('q'),
        makeBudget(5),
      ),
    ).toEqual([]);
  });
});

describe('createInheritedSource', () => {
  it('reads the parent memory through a read-only view, important entries first', async () => {
    const parent = await memoryWith(conversation);
    const source = createInheritedSource({ parent: parent.view(), recentLimit: 1 });
    const blocks = await source.collect(makeRequest('q'), makeBudget(1000));
    expect(blocks.map((block) => block.content)).toEqual([
      '(from parent) user: We decided: the API must use JSON',
      '(from parent) assistant: noted',
    ]);
    expect('append' in parent.view()).toBe(false);
  });
});

describe('createL1RecentSource in compileContext', () => {
  it('becomes the history of the compiled call, in order, with tool pairs intact', async () => {
    const memory = await memoryWith(conversation);
    const compiled = await compileContext(
      { systemPrompt: 'sys', query: 'what did we decide?' },
      {
        counter: createCharCounter(),
        window: 2000,
        sources: [createL1RecentSource({ memory })],
        allocationRatios: { L1_recent: 0.5 },
      },
    );
    expect(compiled.history.map((message) => message.id)).toEqual(['u1', 'a1', 'r1', 'u2', 'a2']);
  });
});

describe('one memory through L1, L2, inherited and retrieval', () => {
  const decisions: Message[] = [
    { id: 'u1', role: 'user', content: 'first question about the service' },
    { id: 'a1', role: 'assistant', content: 'sure' },
    { id: 'u2', role: 'user', content: 'We decided: the API must use JSON' },
    { id: 'a2', role: 'assistant', content: 'noted, JSON it is' },
    { id: 'u3', role: 'user', content: 'Important: the deadline is Friday' },
    { id: 'a3', role: 'assistant', content: 'ok' },
  ];
  const sentCopies = (messages: readonly Message[], text: string) =>
    messages.filter((message) => JSON.stringify(message.content).split(text).length > 1).length;

  it('sends each message once, in the history, and reports the knowledge copies as its duplicates', async () => {
    const memory = await memoryWith(decisions);
    const compiled = await compileContext(
      { systemPrompt: 'sys', query: 'what did we decide about the API JSON deadline?' },
      {
        counter: createCharCounter(),
        window: 4000,
        sources: [
          createL1RecentSource({ memory }),
          createL2ImportantSource({ memory }),
          createInheritedSource({ parent: memory.view() }),
          createUnifiedRetrievalSource({ memory }),
        ],
      },
    );
    expect(compiled.history.map((message) => message.id)).toEqual(['u1', 'a1', 'u2', 'a2', 'u3', 'a3']);
    expect(sentCopies(compiled.messages, 'the API must use JSON')).toBe(1);
    expect(sentCopies(compiled.messages, 'the deadline is Friday')).toBe(1);
    expect(sentCopies(compiled.messages, 'noted, JSON it is')).toBe(1);
    expect(compiled.contexts.knowledge__context ?? '').toBe('');
    const duplicates = compiled.dropped.filter((entry) => entry.reason.type === 'duplicate');
    expect(duplicates.map((entry) => entry.block.id)).toContain('L2_important:u2');
    expect(duplicates.find((entry) => entry.block.id === 'L2_important:u2')?.reason).toEqual({
      type: 'duplicate',
      of: 'L1_recent:u2',
      messageId: 'u2',
    });
  });

  it('leaves out an inherited copy of a message the request history carries', async () => {
    const memory = await memoryWith(decisions);
    const compiled = await compileContext(
      { history: decisions, query: 'and the deadline?' },
      {
        counter: createCharCounter(),
        window: 4000,
        sources: [createInheritedSource({ parent: memory.view() })],
      },
    );
    expect(sentCopies(compiled.messages, 'the deadline is Friday')).toBe(1);
    expect(compiled.report.sources.find((source) => source.name === 'INHERITED')?.keptBlocks).toBe(0);
  });
});
