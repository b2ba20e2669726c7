import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCharCounter } from '../testing/char-counter.ts';
import { compressionBlock, withSummary } from './compact.ts';
import type { CompileOptions, CompileRequest } from './compile-types.ts';
import { gatherBlocks } from './gather-blocks.ts';
import type { Message } from './message.ts';
import { resolveCall } from './resolve-call.ts';
import { createCallSelector } from './select-call.ts';
import { withTokenCache } from './tokens.ts';

describe('createCallSelector', () => {
  it('tells where the history is cut without selecting exactly as a selection does (decision 067, fourth amendment)', async () => {
    let answered = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 40, max: 160 }),
        fc.array(fc.integer({ min: 1, max: 60 }), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 400, max: 4000 }),
        fc.constantFrom(0, 1 / 3, 0.1),
        fc.array(fc.integer({ min: 0, max: 600 }), { minLength: 1, maxLength: 4 }),
        fc.option(fc.integer({ min: 5, max: 400 }), { nil: undefined }),
        async (length, appended, window, historyChunkRatio, reserves, summaryWords) => {
          const text = (at: number, words: number) =>
            `turn ${at}: ${Array.from({ length: words }, (_, index) => `w${(at * 5 + index) % 17}`).join(' ')}`;
          const history: Message[] = Array.from({ length }, (_, at) => ({
            id: `m${at}`,
            role: at % 2 === 0 ? 'user' : 'assistant',
            content: text(at, 4 + (at % 9)),
          }));
          const counter = withTokenCache(createCharCounter());
          const options: CompileOptions = { counter, window, historyChunkRatio };
          // Each call appends messages to the same array, as a session does (the sums carry over).
          for (const words of appended) {
            history.push({ id: `m${history.length}`, role: 'user', content: text(history.length, words) });
            const request: CompileRequest = { systemPrompt: 'You answer.', history, query: 'What next?' };
            const call = resolveCall(request, options, false);
            const gathered = await gatherBlocks(call, request, options);
            const selector = createCallSelector(call, gathered, options);
            const pools = [gathered.selectable];
            if (summaryWords !== undefined) {
              const summary = compressionBlock(text(9999, summaryWords), counter);
              pools.push(withSummary(gathered.selectable, summary, gathered.candidateCount));
            }
            for (const pool of pools) {
              for (const reserve of reserves) {
                const counted = selector.historyDropped(pool, reserve);
                const selected = selector.select(pool, reserve);
                if (counted !== undefined) {
                  answered++;
                  expect(counted).toBe(selected.historyDropped);
                }
              }
            }
          }
        },
      ),
      { numRuns: 150 },
    );
    // The answer is given (not only declined) in most of these calls.
    expect(answered).toBeGreaterThan(100);
  });
});
