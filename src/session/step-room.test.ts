import { describe, expect, it } from 'vitest';
import { type CompiledContext, countMessage, type Message } from '../core/index.ts';
import { createCharCounter } from '../testing/index.ts';
import { sessionStableLayers } from './compile-session.ts';
import { createRecallSource, createSessionIndexes } from './session-recall.ts';
import { recallCapFor, stepTokensTaken } from './turn-recall.ts';

/** A compile of `totalTokens` in an input budget of 1,000 that sent recalled blocks of these sizes. */
function compiled(totalTokens: number, recalled: readonly number[]): CompiledContext {
  return {
    report: { inputBudget: 1000, totalTokens },
    kept: [
      { layer: 'history', tokens: 50, metadata: {} },
      ...recalled.map((tokens, index) => ({
        layer: 'recall__context',
        tokens,
        metadata: { messageId: `r${index}` },
      })),
    ],
  } as unknown as CompiledContext;
}

describe("a turn's steps get their room from the recall (decision 068)", () => {
  it('remembers the most the last three turns with steps took, leaving out the turn asking', () => {
    const indexes = createSessionIndexes();
    expect(indexes.stepRoom('s', 'u1')).toBe(0);
    indexes.noteSteps('s', 'u1', 0);
    indexes.noteSteps('s', 'u1', 300);
    indexes.noteSteps('s', 'u1', 700);
    indexes.noteSteps('s', 'u2', 0);
    indexes.noteSteps('s', 'u3', 200);
    // The turn's latest steps count (700), not its first call's 0; a turn without steps adds nothing.
    expect(indexes.stepRoom('s', 'u4')).toBe(700);
    // A turn does not leave room for its own steps.
    expect(indexes.stepRoom('s', 'u1')).toBe(200);
    indexes.noteSteps('s', 'u4', 100);
    indexes.noteSteps('s', 'u5', 150);
    // Three turns with steps later, u1's 700 is forgotten.
    expect(indexes.stepRoom('s', 'u6')).toBe(200);
    expect(indexes.stepRoom('other', 'u6')).toBe(0);
  });

  it('forgets the steps after ten turns without any', () => {
    const indexes = createSessionIndexes();
    indexes.noteSteps('s', 'u0', 900);
    for (let turn = 1; turn <= 9; turn++) indexes.noteSteps('s', `u${turn}`, 0);
    expect(indexes.stepRoom('s', 'next')).toBe(900);
    indexes.noteSteps('s', 'u10', 0);
    expect(indexes.stepRoom('s', 'next')).toBe(0);
    indexes.noteSteps('s', 'u11', 400);
    indexes.drop('s');
    expect(indexes.stepRoom('s', 'next')).toBe(0);
  });

  it('keeps each holder’s steps and held recall apart — the chat turn’s and each agent’s — and drop forgets them all', () => {
    const indexes = createSessionIndexes();
    const hold = { throughMessageId: 'm9', whole: ['a'], ids: ['a'] };
    indexes.noteSteps('s', 'u1', 500);
    indexes.noteSteps('s', 'u1', 900, 'agent:reader');
    indexes.holdRecall('s', hold, 'agent:reader');
    expect(indexes.stepRoom('s', 'u2')).toBe(500);
    expect(indexes.stepRoom('s', 'u2', 'agent:reader')).toBe(900);
    expect(indexes.stepRoom('s', 'u2', 'agent:writer')).toBe(0);
    expect(indexes.heldRecall('s')).toBeUndefined();
    expect(indexes.heldRecall('s', 'agent:reader')).toBe(hold);
    indexes.holdRecall('s', undefined, 'agent:reader');
    expect(indexes.heldRecall('s', 'agent:reader')).toBeUndefined();
    indexes.holdRecall('s', hold, 'agent:writer');
    indexes.drop('s');
    expect(indexes.heldRecall('s', 'agent:writer')).toBeUndefined();
    expect(indexes.stepRoom('s', 'u2', 'agent:reader')).toBe(0);
  });

  it('counts the earlier steps of a turn as sent and its newest step at its own size (decision 077)', () => {
    const counter = createCharCounter();
    const output = (id: string, text: string): Message => ({
      id,
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: id, toolName: 'read_file', output: { type: 'text', value: text } },
      ],
    });
    const read = (id: string): Message => ({
      id: `call-${id}`,
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: id, toolName: 'read_file', input: { path: id } }],
    });
    const steps = [read('a'), output('a', 'x'.repeat(4000)), read('b'), output('b', 'y'.repeat(3000))];
    // The call sent the first output as a 60-token placeholder and its call as 20 tokens.
    const sent = {
      report: {
        layers: [
          {
            layer: 'history',
            kept: [
              { id: 'history:older', tokens: 500 },
              { id: 'history:call-a', tokens: 20 },
              { id: 'history:a', tokens: 60 },
            ],
          },
        ],
      },
    } as unknown as CompiledContext;
    const newest = steps.slice(2).reduce((sum, message) => sum + countMessage(counter, message), 0);
    expect(stepTokensTaken(sent, steps, counter)).toBe(20 + 60 + newest);
    // One step: all of it at its own size; none: nothing.
    const first = steps.slice(0, 2).reduce((sum, message) => sum + countMessage(counter, message), 0);
    expect(stepTokensTaken(sent, steps.slice(0, 2), counter)).toBe(first);
    expect(stepTokensTaken(sent, [], counter)).toBe(0);
  });

  it('caps the recall by the room the call leaves short, and not when it leaves the room', () => {
    // 1,000 − 800 = 200 free; steps need 500: the recall (401 + 101 with separators) gives 300.
    expect(recallCapFor(compiled(800, [400, 100]), 500)).toBe(502 - 300);
    // A recall smaller than the missing room gives all it has.
    expect(recallCapFor(compiled(800, [150, 100]), 500)).toBe(0);
    expect(recallCapFor(compiled(400, [150, 100]), 500)).toBeUndefined();
    expect(recallCapFor(compiled(800, [150, 100]), 0)).toBeUndefined();
    // No recall to give the room: nothing to cap.
    expect(recallCapFor(compiled(900, []), 500)).toBeUndefined();
  });

  it('packs the recall under the cap by rank, and a capped recall is not whole', async () => {
    const messages = Array.from(
      { length: 12 },
      (_, index) =>
        Object.freeze({
          id: `m${index}`,
          role: index % 2 === 0 ? 'user' : 'assistant',
          content: `the lighthouse keeper wrote entry ${String(index).padStart(2, '0')}`,
        }) as Message,
    );
    const index = createSessionIndexes().sync('s', messages);
    const byId = new Map(
      messages.map((message, position) => [message.id, { message, position: position + 1 }]),
    );
    let cap: number | undefined;
    const outcomes: (readonly string[] | undefined)[] = [];
    const source = createRecallSource({
      index,
      messages: byId,
      eligible: () => true,
      maxTokens: 10_000,
      capTokens: () => cap,
      onCollect: (outcome) => outcomes.push(outcome.whole),
    });
    const request = { query: 'lighthouse keeper entry', history: [], counter: createCharCounter() };
    const budget = { maxTokens: 10_000, source: 'recall' };
    const all = await source.collect(request, budget);
    expect(all).toHaveLength(12);
    expect(outcomes.at(-1)).toHaveLength(12);
    const sizes = all.map((block) => block.tokens + 1);
    cap = Math.max(...sizes) * 3 + 2;
    const capped = await source.collect(request, budget);
    expect(capped.length).toBe(3);
    expect(capped.reduce((sum, block) => sum + block.tokens + 1, 0)).toBeLessThanOrEqual(cap);
    // The best-ranked three: each is among the uncapped recall's, and the outcome is not whole.
    for (const block of capped) expect(all.map((kept) => kept.id)).toContain(block.id);
    expect(outcomes.at(-1)).toBeUndefined();
    // A held recall under the cap keeps its best-ranked messages.
    const held = createRecallSource({
      index,
      messages: byId,
      eligible: () => true,
      maxTokens: 10_000,
      capTokens: () => cap,
      held: () => ({
        throughMessageId: 'm11',
        whole: messages.map((message) => message.id),
        ids: ['m5', 'm1', 'm7', 'm3'],
      }),
    });
    const sent = await held.collect(request, budget);
    expect(sent.map((block) => block.metadata.messageId)).toEqual(['m1', 'm5', 'm7']);
  });

  it('sends the summary before the history only when history after the cut is sent', () => {
    expect(sessionStableLayers({ liveHistory: true, heldRecall: false })).toEqual([
      'todo__context',
      'compression__context',
    ]);
    expect(sessionStableLayers({ liveHistory: false, heldRecall: true })).toEqual([
      'todo__context',
      'recall__context',
    ]);
  });
});
