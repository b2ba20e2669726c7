import { describe, expect, it } from 'vitest';
import { type CompiledContext, countMessage, type Message } from '../core/index.ts';
import { createCharCounter } from '../testing/index.ts';
import { createRecallSource, createSessionIndexes } from './session-recall.ts';
import {
  newTurnRecallCap,
  nextHold,
  settleTurnRecall,
  type TurnRecall,
  turnRecallOf,
} from './turn-recall.ts';

/** A compile that sent these recalled messages, `tokens` each. */
function sent(ids: readonly string[], tokens = 99): CompiledContext {
  return {
    kept: ids.map((id) => ({ layer: 'recall__context', tokens, metadata: { messageId: id } })),
  } as unknown as CompiledContext;
}

const whole = ['a', 'b', 'c', 'd', 'e'];

/** A `read_file` step: the assistant's call (`callId`) and the tool's output `text` (`output`). */
function readFile(callId: string, path: string, text: string): Message[] {
  return [
    {
      id: callId,
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: { path } }],
    },
    {
      id: 'output',
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'c1',
          toolName: 'read_file',
          output: { type: 'text', value: text },
        },
      ],
    },
  ];
}

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
      ...readFile('call', 'log.md', 'the lighthouse keeper entry log '.repeat(40)),
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
      held: () => ({ throughMessageId: 'output', whole, ids }),
    }).collect(request, budget);
    expect(outcomes[1]).toEqual({ held: true, whole: undefined });
    expect(held.map((block) => block.metadata.messageId).sort()).toEqual([...ids].sort());
  });

  describe("settled after a call (decision 068's amendment)", () => {
    /** A call in an input budget of 1,000 that sent `totalTokens`, recalling these messages (99 tokens each). */
    const call = (totalTokens: number, ids: readonly string[]) =>
      ({
        report: { inputBudget: 1000, totalTokens, layers: [] },
        kept: sent(ids).kept,
      }) as unknown as CompiledContext;

    it("ends a hold the turn's cap would cut: the call is compiled again with the hold's messages ranked afresh", async () => {
      const counter = createCharCounter();
      const indexes = createSessionIndexes();
      const hold = { throughMessageId: 'm9', whole, ids: whole };
      indexes.holdRecall('s', hold);
      indexes.noteSteps('s', 'u1', 400);
      const recallCap = newTurnRecallCap();
      // The call's recall as a turn's compile makes it: sent from the stored hold.
      const hooks = turnRecallOf({ indexes, sessionId: 's', throughMessageId: 'm9', cap: recallCap });
      hooks.options.held(false);
      hooks.options.onCollect?.({ held: true, whole: undefined });
      const first = hooks.recall() as TurnRecall;
      expect(first.held).toBe(hold);
      const fresh: TurnRecall = {
        throughMessageId: 'm9',
        held: undefined,
        outcome: { held: false, whole: undefined },
      };
      let recall = first;
      const compiles: { cap: number | undefined; unheld: boolean; held: unknown }[] = [];
      const settled = await settleTurnRecall({
        // 1,000 − 800 = 200 free; the last turns' steps took 400: the recall gives 200 of its 500.
        compiled: call(800, whole),
        compiledOf: (made) => made,
        recompile: async () => {
          compiles.push({ cap: recallCap.tokens, unheld: recallCap.unheld, held: first.held });
          recall = fresh;
          return call(600, ['a', 'b', 'c']);
        },
        recall: () => recall,
        recallCap,
        steps: [],
        counter,
        indexes,
        sessionId: 's',
        turnId: 'u2',
        persist: true,
      });
      // Compiled again once, with the cap, the hold gone (the recall's layer then follows the history).
      expect(compiles).toEqual([{ cap: 500 - 200, unheld: true, held: undefined }]);
      expect(settled.report.totalTokens).toBe(600);
      expect(indexes.heldRecall('s')).toBeUndefined();
    });

    it('sends at a step that cut the hold what the next turn will be sent, so the hold changes once', async () => {
      const counter = createCharCounter();
      const indexes = createSessionIndexes();
      const hold = { throughMessageId: 'm9', whole, ids: whole };
      indexes.holdRecall('s', hold);
      const recallCap = newTurnRecallCap();
      const recall: TurnRecall = {
        throughMessageId: 'm9',
        held: hold,
        outcome: { held: true, whole: undefined },
      };
      const steps = readFile('read', 'a.md', 'x'.repeat(80));
      const stepTokens = steps.reduce((sum, message) => sum + countMessage(counter, message), 0);
      // The step dropped `e`; its steps' tokens drop as many more (100 each with the separator).
      const expected = nextHold({
        recall,
        compiled: call(990, ['a', 'b', 'c', 'd']),
        current: hold,
        stepTokens,
      });
      expect(expected?.ids.length).toBeLessThan(4);
      const caps: (number | undefined)[] = [];
      /** Settles a step that sent `sent`; a recompile records the cap and sends `recompiled`. */
      const settle = (sent: CompiledContext, recompiled: CompiledContext, from: TurnRecall) =>
        settleTurnRecall({
          compiled: sent,
          compiledOf: (made) => made,
          recompile: async () => {
            caps.push(recallCap.tokens);
            return recompiled;
          },
          recall: () => from,
          recallCap,
          steps,
          counter,
          indexes,
          sessionId: 's',
          turnId: 'u2',
          persist: true,
        });
      const settled = await settle(call(990, ['a', 'b', 'c', 'd']), call(700, expected?.ids ?? []), recall);
      expect(caps).toEqual([(expected?.ids.length ?? 0) * 100]);
      expect(settled.kept.map((block) => block.metadata.messageId)).toEqual(expected?.ids);
      expect(indexes.heldRecall('s')).toEqual(expected);
      // A step that cut nothing more than the call dropped is not compiled again.
      caps.length = 0;
      const again = await settle(call(700, expected?.ids ?? []), call(700, []), {
        ...recall,
        held: expected,
      });
      expect(caps).toEqual([]);
      expect(again.report.totalTokens).toBe(700);
    });
  });
});
