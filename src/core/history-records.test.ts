import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCharCounter } from '../testing/char-counter.ts';
import { compileContext } from './compile.ts';
import type { CompiledContext, CompileRequest } from './compile-types.ts';
import type { Message } from './message.ts';
import type { CompileReport } from './report.ts';
import { withTokenCache } from './tokens.ts';

/** The report without the counter's cache statistics (they count lookups, not what was sent). */
function sent(compiled: CompiledContext): { messages: string; report: string } {
  const report: CompileReport = { ...compiled.report };
  delete report.cache;
  return { messages: JSON.stringify(compiled.messages), report: JSON.stringify(report) };
}

const text = (session: number, at: number, words: number) =>
  `s${session} turn ${at}: ${Array.from({ length: words }, (_, index) => `w${(at * 3 + index) % 11}`).join(' ')}`;

const historyOf = (session: number, length: number): Message[] =>
  Array.from({ length }, (_, at) => ({
    id: `m${at}`,
    role: at % 2 === 0 ? 'user' : 'assistant',
    content: text(session, at, 3 + (at % 7)),
  }));

/** A change a caller may make to a message in place, or a message replaced by an equal one. */
type Edit = 'content' | 'role' | 'name' | 'metadata' | 'replace';

function edit(history: Message[], at: number, kind: Edit, words: number): void {
  const message = history[at] as Message;
  if (kind === 'content') message.content = `${String(message.content)} ${'v'.repeat(words)}`;
  else if (kind === 'role') message.role = message.role === 'user' ? 'assistant' : 'user';
  else if (kind === 'name') message.name = message.name === undefined ? 'ana' : `${message.name}a`;
  else if (kind === 'metadata') message.metadata = { note: `edited ${String(words)}` };
  else history[at] = structuredClone(message);
}

describe('history records (one record per message: tagged copy, preview, fingerprint)', () => {
  it('gives the bytes and report of a compile from scratch when sessions alternate, windows move and messages change in place (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            session: fc.integer({ min: 0, max: 1 }),
            // Narrow windows drop old messages (previewed without being tagged), wide ones keep them.
            window: fc.integer({ min: 150, max: 4000 }),
            appended: fc.integer({ min: 0, max: 3 }),
            edits: fc.array(
              fc.record({
                at: fc.nat(),
                kind: fc.constantFrom<Edit>('content', 'role', 'name', 'metadata', 'replace'),
                words: fc.integer({ min: 1, max: 30 }),
              }),
              { maxLength: 3 },
            ),
          }),
          { minLength: 2, maxLength: 10 },
        ),
        async (calls) => {
          // Two sessions compiled in turn with one counter: a compile whose history is not the
          // last one's takes its copies, previews and fingerprints from the records.
          const histories = [historyOf(0, 60), historyOf(1, 45)];
          const counter = withTokenCache(createCharCounter());
          const request = (history: readonly Message[]): CompileRequest => ({
            systemPrompt: 'You answer from the conversation.',
            history,
            query: 'What next?',
          });
          for (const call of calls) {
            const history = histories[call.session] as Message[];
            for (let added = 0; added < call.appended; added++) {
              const at = history.length;
              history.push({ id: `m${at}`, role: 'user', content: text(call.session, at, 5) });
            }
            for (const change of call.edits)
              edit(history, change.at % history.length, change.kind, change.words);
            const compiled = await compileContext(request(history), { counter, window: call.window });
            const scratch = await compileContext(request(structuredClone(history)), {
              counter: createCharCounter(),
              window: call.window,
            });
            expect(sent(compiled)).toEqual(sent(scratch));
          }
        },
      ),
      { numRuns: 80 },
    );
  });

  it('lists the same fingerprint and sends the same copy for an unchanged message after another session’s compile', async () => {
    const counter = withTokenCache(createCharCounter());
    const first = historyOf(0, 40);
    const second = historyOf(1, 40);
    const request = (history: readonly Message[]): CompileRequest => ({ history, query: 'What next?' });
    const before = await compileContext(request(first), { counter, window: 100_000 });
    await compileContext(request(second), { counter, window: 100_000 });
    (first[3] as Message).content = 'changed in place';
    const after = await compileContext(request(first), { counter, window: 100_000 });
    const history = (compiled: CompiledContext) =>
      (compiled.report.messages ?? []).filter((fingerprint) => fingerprint.layer === 'history');
    const [old, now] = [history(before), history(after)];
    expect(now).toHaveLength(40);
    // The other session's compile came between: nothing is carried by position, every
    // unchanged message's fingerprint and copy come from its record.
    for (let at = 0; at < 40; at++) {
      if (at === 3) {
        expect(now[at]).not.toBe(old[at]);
        expect(now[at]?.hash).not.toBe(old[at]?.hash);
        expect(after.messages[at]).not.toBe(before.messages[at]);
      } else {
        expect(now[at]).toBe(old[at]);
        expect(after.messages[at]).toBe(before.messages[at]);
      }
    }
  });
});
