import { describe, expect, it } from 'vitest';
import { getTokenCounter } from '../tokenizers/index.ts';
import { createInMemoryArtifactStore } from './artifact-handles.ts';
import { compileContext } from './compile.ts';
import { createStepCompiler } from './compile-step.ts';
import type { CompileOptions, CompileRequest } from './compile-types.ts';
import { positionPriority } from './history.ts';
import type { Message } from './message.ts';
import { fingerprintsComputed } from './message-fingerprints.ts';
import { recalledIn, recallOf } from './recall-source.test-support.ts';
import { readFileMessages } from './tool-reads.test-support.ts';
import { prepareHistory } from './turn-history.ts';

const counter = getTokenCounter('gpt-4o');

const read = readFileMessages;

const file = (name: string, lines: number) =>
  Array.from(
    { length: lines },
    (_, index) => `${name} line ${index}: the loader retries batch ${index}.`,
  ).join('\n');

function history(): Message[] {
  const messages: Message[] = [];
  for (let turn = 0; turn < 12; turn++) {
    messages.push({ id: `u${turn}`, role: 'user', content: `Question ${turn} about the loader?` });
    if (turn % 3 === 1) messages.push(...read(`h${turn}`, file(`f${turn}`, 40)));
    messages.push({ id: `a${turn}`, role: 'assistant', content: `Answer ${turn}: it retries.` });
  }
  return messages;
}

const steps = [...read('s1', file('s1', 30)), ...read('s2', file('s2', 60))];

/** Compiles `request` with its history as a plain array and as a frozen copy; both must agree. */
async function both(request: CompileRequest, window: number, maxHistoryMessages?: number) {
  const options: CompileOptions = {
    counter,
    window,
    toolResults: { store: createInMemoryArtifactStore() },
    ...(maxHistoryMessages === undefined ? {} : { maxHistoryMessages }),
  };
  const run = (list: readonly Message[]) => compileContext({ ...request, history: list }, options);
  const plain = await run([...(request.history ?? [])]);
  const frozen = Object.freeze([...(request.history ?? [])]);
  const first = await run(frozen);
  const again = await run(frozen);
  return { plain, first, again };
}

describe('prepareHistory', () => {
  it('gives a frozen history the same compile as a plain one, on every recompile', async () => {
    const cases: { request: CompileRequest; window: number; maxHistoryMessages?: number }[] = [
      { request: { history: history(), query: 'Review the loader.', steps }, window: 4000 },
      { request: { history: history(), query: 'Review the loader.', steps }, window: 1500 },
      {
        request: {
          history: history(),
          query: 'Review the loader.',
          steps,
          compression: { summary: 'Earlier: loader questions.', throughMessageId: 'a3' },
        },
        window: 4000,
      },
      {
        // The summary covers part of this turn's steps.
        request: {
          history: history(),
          query: 'Review the loader.',
          steps,
          compression: { summary: 'Earlier: everything.', throughMessageId: 's1:result' },
        },
        window: 4000,
      },
      {
        // A step repeats a history id.
        request: {
          history: history(),
          query: 'Review the loader.',
          steps: [...steps, ...read('h1', 'again')],
        },
        window: 4000,
      },
      // No query: the current turn starts at the last user message.
      { request: { history: [...history(), ...steps] }, window: 4000 },
      // A history window: alone, starting on a tool result, over budget, with a summary
      // covering messages before it or inside it, reaching into the steps, and a clash.
      {
        request: { history: history(), query: 'Review the loader.', steps },
        window: 4000,
        maxHistoryMessages: 9,
      },
      {
        request: { history: history(), query: 'Review the loader.', steps },
        window: 4000,
        maxHistoryMessages: 12,
      },
      {
        request: { history: history(), query: 'Review the loader.', steps },
        window: 1500,
        maxHistoryMessages: 20,
      },
      ...['a3', 'a10'].map((through) => ({
        request: {
          history: history(),
          query: 'Review the loader.',
          steps,
          compression: { summary: 'Earlier: loader questions.', throughMessageId: through },
        },
        window: 4000,
        maxHistoryMessages: 9,
      })),
      {
        request: {
          history: history(),
          query: 'Review the loader.',
          steps,
          compression: { summary: 'Earlier: everything.', throughMessageId: 's1:result' },
        },
        window: 4000,
        maxHistoryMessages: 9,
      },
      {
        request: {
          history: history(),
          query: 'Review the loader.',
          steps: [...steps, ...read('h1', 'again')],
        },
        window: 4000,
        maxHistoryMessages: 9,
      },
    ];
    for (const { request, window, maxHistoryMessages } of cases) {
      const { plain, first, again } = await both(request, window, maxHistoryMessages);
      expect(first.messages).toEqual(plain.messages);
      // The counter's cache statistics differ (the frozen history is counted once); nothing else.
      const { cache: _plainCache, ...report } = plain.report;
      expect({ ...first.report, cache: undefined }).toEqual({ ...report, cache: undefined });
      expect(again.messages).toEqual(plain.messages);
      expect({ ...again.report, cache: undefined }).toEqual({ ...report, cache: undefined });
    }
  });

  it('reuses the preparation of a frozen history while query, counter and rules are unchanged', () => {
    const list = Object.freeze(history());
    const input = {
      history: list,
      query: { id: 'q', role: 'user' as const, content: 'Why?' },
      rawQuery: 'Why?',
      counter,
      placeholders: {
        policy: { store: createInMemoryArtifactStore() },
        maxTokens: 1000,
        currentFrom: list.length,
      },
      throughMessageId: undefined,
    };
    const prepared = prepareHistory(input);
    expect(prepareHistory(input)).toBe(prepared);
    expect(prepared.actions.map((action) => action.type)).toEqual([
      'placeholder',
      'placeholder',
      'placeholder',
      'placeholder',
    ]);
    expect(prepareHistory({ ...input, query: { ...input.query, id: 'q2' } })).not.toBe(prepared);
    expect(prepareHistory({ ...input, maxMessages: 5 })).not.toBe(prepared);
    expect(prepareHistory({ ...input, history: [...list] })).not.toBe(
      prepareHistory({ ...input, history: [...list] }),
    );
  });

  it('reads the uncarried set once per covered message for all the steps of a turn, reporting as a fresh compile does', async () => {
    const long: Message[] = [];
    for (let turn = 0; turn < 6; turn++)
      long.push(...history().map((message) => ({ ...message, id: `c${turn}-${message.id}` })));
    const through = long[long.length - 20] as Message;
    const coveredCount = long.length - 19;
    /** A set that counts its reads. */
    class CountingSet extends Set<string> {
      reads = 0;
      override has(id: string): boolean {
        this.reads++;
        return super.has(id);
      }
    }
    const uncarriedIds = long
      .slice(0, coveredCount)
      .filter((_, index) => index % 3 === 0)
      .map((m) => m.id);
    const uncarried = new CountingSet(uncarriedIds);
    const compression = { summary: 'The loader retries failed batches.', throughMessageId: through.id };
    const store = createInMemoryArtifactStore();
    // A recall of three covered messages: reported `recalled` into its layer, not dropped.
    const recalledIds = [long[4], long[30], long[60]].map((message) => (message as Message).id);
    const recall = recallOf(recalledIds);
    const options: CompileOptions = { counter, window: 128_000, toolResults: { store }, sources: [recall] };
    const request: CompileRequest = {
      systemPrompt: 'You review loaders.',
      history: long,
      query: 'Why?',
      compression: { ...compression, uncarried },
    };
    const compiler = createStepCompiler({ request, options });
    const turnSteps = [...read('d1', file('d1', 30)), ...read('d2', file('d2', 20))];
    await compiler.compile(turnSteps.slice(0, 2));
    expect(uncarried.reads).toBe(coveredCount);
    const second = await compiler.compile(turnSteps);
    // The second step reuses the first one's drops of the covered history.
    expect(uncarried.reads).toBe(coveredCount);
    const fresh = await compileContext(
      {
        ...request,
        history: [...long],
        steps: turnSteps,
        compression: { ...compression, uncarried: new Set(uncarriedIds) },
      },
      options,
    );
    expect({ ...second.report, cache: undefined }).toEqual({ ...fresh.report, cache: undefined });
    const dropped = second.report.layers.find((layer) => layer.layer === 'history')?.dropped ?? [];
    const reasons = dropped.map((entry) => entry.reason.type);
    expect(reasons).toContain('recallable');
    expect(reasons).toContain('summarized');
    // Recalled one by one among the listed drops, or named by the run of covered history they sit in.
    expect(recalledIn(dropped)).toEqual(recalledIds.map((id) => `history:${id}`).sort());
    expect(dropped.filter((entry) => entry.run?.others !== undefined).length).toBeGreaterThan(0);
  });

  it('gives consecutive steps over one frozen history the same report as a fresh compile, fingerprinting only new messages', async () => {
    const long: Message[] = [];
    for (let turn = 0; turn < 8; turn++)
      long.push(...history().map((message) => ({ ...message, id: `${turn}-${message.id}` })));
    const store = createInMemoryArtifactStore();
    const request: CompileRequest = { systemPrompt: 'You review loaders.', history: long, query: 'Why?' };
    const options: CompileOptions = { counter, window: 128_000, toolResults: { store } };
    const compiler = createStepCompiler({ request, options });
    // Steps of their own: message objects no other test has compiled.
    const turnSteps = [...read('n1', file('n1', 30)), ...read('n2', file('n2', 20))];
    const first = await compiler.compile(turnSteps.slice(0, 2));
    const before = fingerprintsComputed();
    const second = await compiler.compile(turnSteps);
    // Per message work is paid once: the history's fingerprints are copied from the step
    // before; only the new layer messages (system, query) and the new step are fingerprinted.
    expect(fingerprintsComputed() - before).toBe(4);
    const fresh = await compileContext({ ...request, history: [...long], steps: turnSteps }, options);
    expect({ ...second.report, cache: undefined }).toEqual({ ...fresh.report, cache: undefined });
    expect(second.messages).toEqual(fresh.messages);
    // Identical except the new step: the same fingerprints up to it, then its two messages.
    const sent = first.report.messages ?? [];
    expect(second.report.messages?.slice(0, sent.length)).toEqual(sent);
    expect(second.report.messages?.slice(sent.length).map((entry) => entry.id)).toEqual([
      'n2:call',
      'n2:result',
    ]);
    const summaries = (report: typeof first.report) =>
      report.layers
        .find((layer) => layer.layer === 'history')
        ?.kept.map(({ priority: _priority, ...summary }) => summary);
    expect(summaries(second.report)?.slice(0, -2)).toEqual(summaries(first.report));
    // The history's blocks and summaries do not depend on the steps (decision 059): the second
    // step's report lists the first step's summary objects (frozen) for every history message.
    const kept = (report: typeof first.report) =>
      report.layers.find((layer) => layer.layer === 'history')?.kept ?? [];
    const historyCount = kept(first.report).length - 2;
    expect(historyCount).toBeGreaterThan(100);
    kept(second.report)
      .slice(0, historyCount)
      .forEach((summary, index) => {
        expect(summary).toBe(kept(first.report)[index]);
      });
    expect(Object.isFrozen(kept(second.report)[0])).toBe(true);
    // Priorities are positions over the turn (decision 065): the steps continue the history.
    const priorities = kept(second.report).map((summary) => summary.priority);
    for (let index = 1; index < priorities.length; index++)
      expect(priorities[index]).toBeGreaterThan(priorities[index - 1] as number);
    expect(priorities).toEqual(priorities.map((_, index) => positionPriority(index)));
    expect(priorities[0]).toBe(0.05);
    expect(priorities.at(-1)).toBeLessThan(1);
  });
});
