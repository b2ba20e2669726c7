import { describe, expect, it } from 'vitest';
import type { CompiledContext, Message } from '../core/index.ts';
import { createCharCounter } from '../testing/index.ts';
import { createRecallSource, createSessionIndexes } from './session-recall.ts';
import { nextHold, type TurnRecall } from './turn-recall.ts';

/** A compile that sent these recalled messages, `tokens` each. */
function sent(ids: readonly string[], tokens = 99): CompiledContext {
  return {
    kept: ids.map((id) => ({ layer: 'recall__context', tokens, metadata: { messageId: id } })),
  } as unknown as CompiledContext;
}

const whole = ['a', 'b', 'c', 'd', 'e'];

describe('the held recall (decision 063)', () => {
  it('is made when a whole recall was sent whole, and not when the call dropped part of it', () => {
    const recall: TurnRecall = { throughMessageId: 'm9', held: undefined, outcome: { held: false, whole } };
    expect(nextHold({ recall, compiled: sent(whole), current: undefined, stepTokens: 0 })).toEqual({
      throughMessageId: 'm9',
      whole,
      ids: whole,
    });
    expect(
      nextHold({ recall, compiled: sent(['a', 'b']), current: undefined, stepTokens: 0 }),
    ).toBeUndefined();
    const partial: TurnRecall = { ...recall, outcome: { held: false, whole: undefined } };
    expect(
      nextHold({ recall: partial, compiled: sent(whole), current: undefined, stepTokens: 0 }),
    ).toBeUndefined();
  });

  it('only shrinks: a step that had to drop held messages drops as many more as its steps took', () => {
    const held = { throughMessageId: 'm9', whole, ids: whole };
    const recall: TurnRecall = { throughMessageId: 'm9', held, outcome: { held: true, whole: undefined } };
    // Nothing dropped: the hold stays as it is, whatever the steps cost.
    expect(nextHold({ recall, compiled: sent(whole), current: held, stepTokens: 500 })?.ids).toEqual(whole);
    // The step dropped `e` (lowest-ranked); 150 tokens of steps: `d` and `c` go too (100 each).
    expect(
      nextHold({ recall, compiled: sent(['a', 'b', 'c', 'd']), current: held, stepTokens: 150 })?.ids,
    ).toEqual(['a', 'b']);
    // The turn that made the hold continues it at its steps (same `whole`), rather than ending it.
    const made: TurnRecall = { throughMessageId: 'm9', held: undefined, outcome: { held: false, whole } };
    expect(
      nextHold({ recall: made, compiled: sent(['a', 'b', 'c']), current: held, stepTokens: 50 })?.ids,
    ).toEqual(['a', 'b']);
  });

  it('is sent as held when the query also finds a message with nothing to carry (a tool output too long to recall)', async () => {
    const messages: Message[] = [
      ...Array.from(
        { length: 6 },
        (_, index) =>
          ({
            id: `m${index}`,
            role: 'user',
            content: `the lighthouse keeper wrote entry ${index}`,
          }) as Message,
      ),
      {
        id: 'call',
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: { path: 'log.md' } }],
      },
      {
        id: 'output',
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'read_file',
            output: { type: 'text', value: 'the lighthouse keeper entry log '.repeat(40) },
          },
        ],
      },
    ];
    const index = createSessionIndexes().sync('s', messages);
    const byId = new Map(messages.map((message, position) => [message.id, { message, position }]));
    const request = { query: 'lighthouse keeper entry', history: [], counter: createCharCounter() };
    const budget = { maxTokens: 10_000, source: 'recall' };
    const outcomes: { held: boolean; whole: readonly string[] | undefined }[] = [];
    const options = {
      index,
      messages: byId,
      eligible: () => true,
      maxTokens: 10_000,
      onCollect: (outcome: (typeof outcomes)[number]) => outcomes.push(outcome),
    };
    const first = await createRecallSource(options).collect(request, budget);
    const whole = outcomes[0]?.whole ?? [];
    // The output is a hit, but nothing of it is recalled: the whole recall is the rest.
    expect(first.map((block) => block.metadata.messageId)).not.toContain('output');
    expect(whole).not.toContain('output');
    expect(whole).toEqual(expect.arrayContaining(['m0', 'm1', 'm2', 'm3', 'm4', 'm5']));
    const ids = whole.slice(0, 4);
    const held = await createRecallSource({
      ...options,
      held: { throughMessageId: 'output', whole, ids },
    }).collect(request, budget);
    expect(outcomes[1]).toEqual({ held: true, whole: undefined });
    expect(held.map((block) => block.metadata.messageId).sort()).toEqual([...ids].sort());
  });
});
