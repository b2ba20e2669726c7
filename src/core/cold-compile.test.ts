import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCharCounter } from '../testing/char-counter.ts';
import { compileContext } from './compile.ts';
import type { CompiledContext } from './compile-types.ts';
import type { Message } from './message.ts';
import { createOrchestrator } from './orchestrator.ts';
import type { CompileReport } from './report.ts';
import { withTokenCache } from './tokens.ts';

/** The report without the counter's cache statistics (they count lookups, not what was sent). */
function sent(compiled: CompiledContext): { messages: string; report: string } {
  const report: CompileReport = { ...compiled.report };
  delete report.cache;
  return { messages: JSON.stringify(compiled.messages), report: JSON.stringify(report) };
}

const history = (count: number): Message[] =>
  Array.from({ length: count }, (_, index) => ({
    id: `m${index}`,
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: `Message ${index} about the trip to Lisbon and the hotel.`,
  }));

describe('a cold compile (a new counter)', () => {
  it('reads each message a bounded number of times per field in a compile over messages it has never seen', async () => {
    const reads = new Map<string, number>();
    const messages = history(600).map(
      (message) =>
        new Proxy(message, {
          get(target, key, receiver) {
            if (typeof key === 'string') reads.set(key, (reads.get(key) ?? 0) + 1);
            return Reflect.get(target, key, receiver);
          },
        }),
    );
    const request = { systemPrompt: 'You plan trips.', history: messages, query: 'When do we leave?' };
    const options = { window: 12_000 };
    const cold = await createOrchestrator({ ...options, counter: withTokenCache(createCharCounter()) }).build(
      request,
    );
    const perMessage = Object.fromEntries([...reads].map(([key, count]) => [key, count / 600]));
    // The fresh measuring pass reads each content once for its count and once for its entry;
    // before it, through the run memo, 8.43 reads of content per message.
    expect(perMessage.content).toBeLessThanOrEqual(7.5);
    expect(perMessage.role).toBeLessThanOrEqual(3.5);
    expect(perMessage.name).toBeLessThanOrEqual(3.25);
    expect(perMessage.metadata).toBeLessThanOrEqual(2.7);
    expect(perMessage.id).toBeLessThanOrEqual(2.25);
    const scratch = await compileContext(
      { ...request, history: structuredClone(history(600)) },
      { ...options, counter: createCharCounter() },
    );
    expect(sent(cold)).toEqual(sent(scratch));
  });

  it('sends what a compile from scratch sends when a role, name or metadata changed in place between two counters’ compiles', async () => {
    const messages = history(400);
    const request = () => ({
      systemPrompt: 'You plan trips.',
      history: messages,
      query: 'When do we leave?',
    });
    const options = { window: 8_000 };
    const compiled: { cold: CompiledContext; snapshot: Message[] }[] = [];
    // Changes that keep every count (the character counter counts no role, and `Ana` and `Bob`
    // alike) are seen by the measures' fields alone.
    for (let call = 0; call < 6; call++) {
      if (call === 1) (messages[394] as Message).role = 'assistant';
      if (call === 2) (messages[396] as Message).metadata = { note: 'edited' };
      if (call === 3) (messages[397] as Message).name = 'Ana';
      if (call === 4) (messages[397] as Message).name = 'Bob';
      // A new counter every call: every measure is new, the blocks may be the last compile's.
      const orchestrator = createOrchestrator({ ...options, counter: withTokenCache(createCharCounter()) });
      compiled.push({ cold: await orchestrator.build(request()), snapshot: structuredClone(messages) });
      if (call === 4) messages.push({ id: 'm400', role: 'user', content: 'Noted.' });
    }
    for (const { cold, snapshot } of compiled) {
      const scratch = await compileContext(
        { ...request(), history: snapshot },
        { ...options, counter: createCharCounter() },
      );
      expect(sent(cold)).toEqual(sent(scratch));
    }
  });

  it('keeps the first list it measured apart from later updates of it (a message replaced by an equal one under another id)', async () => {
    const messages = history(10);
    const orchestrator = createOrchestrator({ window: 4_000, counter: withTokenCache(createCharCounter()) });
    const compileAndCheck = async (list: Message[]) => {
      const request = { systemPrompt: 'You plan trips.', history: list, query: 'When do we leave?' };
      const compiled = await orchestrator.build(request);
      const scratch = await compileContext(
        { ...request, history: structuredClone(list) },
        { window: 4_000, counter: createCharCounter() },
      );
      expect(sent(compiled)).toEqual(sent(scratch));
    };
    await compileAndCheck(messages);
    // The same list but one message: same content and role, another id.
    const replaced = messages.map((message, index) => (index === 5 ? { ...message, id: 'other' } : message));
    await compileAndCheck(replaced);
    // A list that starts elsewhere and then holds the first list's messages from its start on.
    await compileAndCheck([{ id: 'before', role: 'user', content: 'Before.' }, ...replaced]);
  });

  it('fingerprints a message of parts again when its role changed in place (the hash covers role and parts)', async () => {
    const messages: Message[] = [
      { id: 'm0', role: 'user', content: 'Read the file.' },
      {
        id: 'parts0',
        role: 'assistant',
        content: [{ type: 'text', text: 'The file says we leave at nine.' }],
      },
    ];
    const request = () => ({
      systemPrompt: 'You plan trips.',
      history: messages,
      query: 'When do we leave?',
    });
    await createOrchestrator({ window: 400, counter: withTokenCache(createCharCounter()) }).build(request());
    (messages[1] as Message).role = 'user';
    const cold = await createOrchestrator({
      window: 400,
      counter: withTokenCache(createCharCounter()),
    }).build(request());
    const scratch = await compileContext(
      { ...request(), history: structuredClone(messages) },
      { window: 400, counter: createCharCounter() },
    );
    expect(sent(cold)).toEqual(sent(scratch));
  });

  it('gives the bytes and report of a compile from scratch for every cold compile of a history changed in place between them (property)', async () => {
    type Change =
      | { type: 'append' }
      | { type: 'role' | 'name' | 'metadata' | 'content'; at: number }
      | { type: 'tool'; error: boolean };
    const change: fc.Arbitrary<Change> = fc.oneof(
      fc.constant({ type: 'append' as const }),
      fc.record({
        type: fc.constantFrom('role' as const, 'name' as const, 'metadata' as const, 'content' as const),
        at: fc.nat(),
      }),
      fc.record({ type: fc.constant('tool' as const), error: fc.boolean() }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 60 }),
        fc.array(change, { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 200, max: 3000 }),
        async (length, changes, window) => {
          // Every third message named, so a name can change without changing a count.
          const messages = history(length).map((message, index) =>
            index % 3 === 0 ? { ...message, name: 'Ana' } : message,
          );
          const request = () => ({
            systemPrompt: 'You plan trips.',
            history: messages,
            query: 'When do we leave?',
          });
          const compiled: { cold: CompiledContext; snapshot: Message[] }[] = [];
          const compile = async () => {
            // A new counter every call: a cold compile over the messages the last one saw.
            const orchestrator = createOrchestrator({ window, counter: withTokenCache(createCharCounter()) });
            compiled.push({ cold: await orchestrator.build(request()), snapshot: structuredClone(messages) });
          };
          await compile();
          for (const [step, item] of changes.entries()) {
            const target = messages[
              item.type === 'append' || item.type === 'tool' ? 0 : item.at % messages.length
            ] as Message;
            if (item.type === 'append')
              messages.push({ id: `new${step}`, role: 'user', content: `Appended ${step}.` });
            // Roles, and `Ana` and `Bob`, count alike: only the fields tell the change. A text
            // goes between user and assistant; a tool call or result keeps its role (its parts
            // suit that one alone, `PARTS_OF_ROLE`).
            else if (item.type === 'role' && typeof target.content === 'string')
              target.role = target.role === 'user' ? 'assistant' : 'user';
            else if (item.type === 'name') target.name = target.name === 'Ana' ? 'Bob' : 'Ana';
            else if (item.type === 'metadata') target.metadata = { step };
            else if (item.type === 'content')
              // A tool message's content stays a tool result (a text is refused).
              target.content =
                target.role === 'tool'
                  ? [
                      {
                        type: 'tool-result',
                        toolCallId: `changed${step}`,
                        toolName: 'read',
                        output: { type: 'text', value: `Changed ${step}.` },
                      },
                    ]
                  : `Changed ${step}.`;
            else if ('error' in item)
              messages.push(
                {
                  id: `call${step}`,
                  role: 'assistant',
                  content: [{ type: 'tool-call', toolCallId: `t${step}`, toolName: 'read', input: {} }],
                },
                {
                  id: `result${step}`,
                  role: 'tool',
                  content: [
                    {
                      type: 'tool-result',
                      toolCallId: `t${step}`,
                      toolName: 'read',
                      output: item.error
                        ? { type: 'error-text', value: 'Failed.' }
                        : { type: 'text', value: 'Read.' },
                    },
                  ],
                },
              );
            await compile();
          }
          for (const { cold, snapshot } of compiled) {
            const scratch = await compileContext(
              { ...request(), history: snapshot },
              { window, counter: createCharCounter() },
            );
            expect(sent(cold)).toEqual(sent(scratch));
          }
        },
      ),
      { numRuns: 80 },
    );
  });
});
