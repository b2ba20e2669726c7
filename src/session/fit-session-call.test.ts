import { describe, expect, it } from 'vitest';
import type { Message, Summarizer } from '../core/index.ts';
import { getTokenCounter } from '../tokenizers/index.ts';
import type { PreparedSession, SessionCompile } from './compile-session.ts';
import { compileWithinBudget, type FitSessionCallContext } from './fit-session-call.ts';
import { DEFAULT_LONG_SESSION } from './long-session-settings.ts';

const BUDGET = 10_000;
const counter = getTokenCounter('gpt-4o');
const conversation: Message[] = [
  { id: 'm1', role: 'user', content: 'first question' },
  { id: 'm2', role: 'assistant', content: 'first answer' },
  { id: 'm3', role: 'user', content: 'second question' },
  { id: 'm4', role: 'assistant', content: 'second answer' },
];

/**
 * A session past its cut whose call totals `total` tokens, `recall` of them recalled and
 * `history` of them the live history: what `compileWithinBudget` reads of a compile (kept
 * blocks by layer, totals, drops).
 */
function preparedSession(total: number, recall: number, history = 5000): PreparedSession {
  const report = { totalTokens: total, inputBudget: BUDGET, compaction: [] };
  const compiled = {
    report,
    compiled: {
      report,
      kept: [
        { layer: 'recall__context', tokens: recall - 1, metadata: {} },
        { layer: 'history', tokens: history, metadata: { message: conversation[3] } },
      ],
      dropped: [],
      query: undefined,
    },
    queryMessage: undefined,
    warnings: [] as string[],
    tools: [],
  } as unknown as SessionCompile;
  return {
    conversation,
    cutCount: 2,
    counter,
    longSession: { ...DEFAULT_LONG_SESSION },
    compile: async () => ({ ...compiled, warnings: [] }),
  } as unknown as PreparedSession;
}

/** A preview whose summariser would need a model: a call that must move the cut says so in a warning. */
const context = {
  persist: false,
  summarizer: { name: 'model' } as Summarizer,
  sessionId: 's',
  now: () => new Date(0),
} as unknown as FitSessionCallContext;
const step: Message[] = [{ id: 's1', role: 'tool', content: 'output' }];

describe('compileWithinBudget (decisions 040, 063, 069)', () => {
  it('moves the cut for the recall slot at a turn’s first call', async () => {
    // 9,500 of 10,000 tokens, 2,000 recalled: the recall slot (5,500) counts, so the call is past 9,000.
    const fitted = await compileWithinBudget(context, preparedSession(9500, 2000));
    expect(fitted.compiled.warnings.join('\n')).toContain('compaction pending');
  });

  it('lets the recall slot give way to the last turn when the fixed layers leave less', async () => {
    // The same call with a live history of 40 tokens: the fixed layers take 7,461, so under the
    // soft limit 1,139 are left for the history and the recall; the slot shrinks to what the last
    // turn leaves of them, and the recall beyond it only fills — the cut stays.
    const fitted = await compileWithinBudget(context, preparedSession(9500, 2000, 40));
    expect(fitted.compiled.warnings).toEqual([]);
  });

  it('lets the recall give way in a tool step: the cut moves only for what the recall cannot free', async () => {
    const fitted = await compileWithinBudget(context, preparedSession(9500, 2000), step);
    expect(fitted.compiled.warnings).toEqual([]);
    // Without the recall the step would still be past the soft limit: then the cut moves.
    const over = await compileWithinBudget(context, preparedSession(9500, 400), step);
    expect(over.compiled.warnings.join('\n')).toContain('compaction pending');
  });
});
