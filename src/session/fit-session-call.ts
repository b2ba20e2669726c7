import {
  type CompactionAction,
  type CompiledContext,
  CtxloomError,
  countMessage,
  type Message,
  planHistoryCut,
  rollSummary,
  type Summarizer,
  type SummaryPeriod,
} from '../core/index.ts';
import type { PreparedSession, SessionCompile } from './compile-session.ts';
import type { HistorySummary, SessionCompression, SessionStore } from './session-store.ts';

/** How a long session's call is fitted (see {@link compileWithinBudget}). */
export interface FitSessionCallContext {
  store: SessionStore;
  sessionId: string;
  /** The engine's one summariser (decision 040). */
  summarizer: Summarizer;
  /**
   * True for a call about to be sent (the compaction is stored before it); false for a
   * preview, which compacts in memory — or, when the summariser calls a model, does not
   * compact and says so in a warning.
   */
  persist: boolean;
  /** Loads the session again, with a compression state not stored yet and what compaction did. */
  prepare: (override: {
    compression?: SessionCompression;
    actions: readonly CompactionAction[];
  }) => Promise<PreparedSession>;
  /** Receives each model call a summariser makes, before it is sent (the call log). */
  onSummarizerCall?: (compiled: CompiledContext) => void | Promise<void>;
  now: () => Date;
  signal?: AbortSignal;
}

/** A fitted call: the compile to send and the prepared session it came from. */
export interface FittedCall {
  prepared: PreparedSession;
  compiled: SessionCompile;
}

/** Moves of the cut one call may make before it is sent as it is. */
const MAX_MOVES = 3;

/**
 * Compiles a session's call within its budget (decision 040): when the call would pass the
 * soft limit or drop history for lack of room, the cut moves forward — the messages passing
 * it join the rolling summary (stored before the call, unless this is a preview) — and the
 * call is compiled again. A call whose fixed part (system prompt, tools, query, steps) alone
 * exceeds the input budget fails with `over-budget`.
 */
export async function compileWithinBudget(
  context: FitSessionCallContext,
  start: PreparedSession,
  steps?: readonly Message[],
): Promise<FittedCall> {
  let prepared = start;
  let compiled = await prepared.compile(steps === undefined ? {} : { steps });
  const settings = prepared.longSession;
  if (settings === undefined) return { prepared, compiled };
  // Every move of this call is in its report, not only the last one.
  const actions: CompactionAction[] = [];
  // Within a turn's tool loop the recall only gives way (decision 063): it shrinks as the
  // steps grow, and the cut moves only for what the recall cannot free.
  const recallSlot = (budget: number) =>
    steps !== undefined && steps.length > 0 ? 0 : Math.floor(settings.recallRatio * budget);
  for (let move = 0; move < MAX_MOVES; move++) {
    const trigger = triggerOf(compiled, settings.softLimitRatio, recallSlot(compiled.report.inputBudget));
    const live = liveHistory(prepared, compiled);
    if (trigger === undefined || live.length === 0) break;
    if (!context.persist && context.summarizer.summarizeMessage === undefined) {
      compiled.warnings.push(
        `compaction pending: the next turn moves ${live.length > 1 ? 'older messages' : 'a message'} into the rolling summary with ${context.summarizer.name} first`,
      );
      break;
    }
    const budget = compiled.report.inputBudget;
    const liveTokens = live.map((message) => countMessage(prepared.counter, message));
    // The room is counted under the soft limit, so after a move the history grows for
    // (1 − keepRatio) of it before the next move: the cut stays put for many turns.
    const room =
      Math.floor(settings.softLimitRatio * budget) -
      fixedTokens(compiled, new Set(live.map((message) => message.id))) -
      Math.floor(settings.summaryRatio * budget) -
      Math.floor(settings.recallRatio * budget);
    let passing = planHistoryCut({
      live,
      tokens: liveTokens,
      roomTokens: room,
      keepRatio: settings.keepRatio,
    });
    // Over budget although the plan found room (other layers grew): the next turn goes.
    if (passing === 0) passing = nextTurnStart(live);
    const compaction = await moveSessionCut({
      context,
      prepared,
      passing,
      trigger,
      capTokens: Math.floor(settings.summaryRatio * budget),
    });
    actions.push(...compaction.actions);
    prepared = await context.prepare(
      context.persist
        ? { actions: [...actions] }
        : { compression: compaction.compression, actions: [...actions] },
    );
    compiled = await prepared.compile(steps === undefined ? {} : { steps });
  }
  if (compiled.report.totalTokens > compiled.report.inputBudget) {
    throw new CtxloomError({
      code: 'over-budget',
      message: `the call needs ${compiled.report.totalTokens} input tokens with no history left to move behind the cut; the input budget is ${compiled.report.inputBudget} (shorten the message or the session's fixed layers)`,
      path: 'budget.window',
    });
  }
  return { prepared, compiled };
}

/** The messages after the cut, the query left out (stored before a turn's later steps). */
function liveHistory(prepared: PreparedSession, compiled: SessionCompile): readonly Message[] {
  const live = prepared.conversation.slice(prepared.cutCount);
  const queryId = compiled.queryMessage?.id ?? compiled.compiled.query?.id;
  return live.at(-1)?.id === queryId && queryId !== undefined ? live.slice(0, -1) : live;
}

/**
 * Why the cut must move: history dropped for lack of room, or the call past the soft limit —
 * counting recall only up to its planned slot (`recallSlot`): beyond it, recall merely fills
 * what the rest leaves.
 */
function triggerOf(
  compiled: SessionCompile,
  softLimitRatio: number,
  recallSlot: number,
): 'overflow' | 'soft-limit' | undefined {
  const dropped = compiled.compiled.dropped.some(
    (entry) => entry.block.layer === 'history' && entry.reason.type === 'over-budget',
  );
  if (dropped) return 'overflow';
  let recall = 0;
  for (const block of compiled.compiled.kept)
    if (block.layer === 'recall__context') recall += block.tokens + 1;
  const firm = compiled.report.totalTokens - Math.max(0, recall - recallSlot);
  if (firm > softLimitRatio * compiled.report.inputBudget) return 'soft-limit';
  return undefined;
}

/** Tokens of the call that moving the cut cannot free: all but the live history, summary and recall. */
function fixedTokens(compiled: SessionCompile, liveIds: ReadonlySet<string>): number {
  let movable = 0;
  for (const block of compiled.compiled.kept) {
    if (block.layer === 'compression__context' || block.layer === 'recall__context') movable += block.tokens;
    else if (block.layer === 'history') {
      const id = (block.metadata as { message?: Message }).message?.id;
      if (id !== undefined && liveIds.has(id)) movable += block.tokens;
    }
  }
  return Math.max(0, compiled.report.totalTokens - movable);
}

/** Messages up to the second user message (the first turn passes), or all. */
function nextTurnStart(live: readonly Message[]): number {
  for (let index = 1; index < live.length; index++) if (live[index]?.role === 'user') return index;
  return live.length;
}

/**
 * Moves a session's cut past `passing` messages after it (decision 040): rolls them into the
 * summary under `capTokens` and stores it — or, for a preview (`persist` false), only returns
 * the new state — with the `compacted` action (and `summarizer-failed` when the extractive
 * summariser stood in) for the next call's report.
 */
export async function moveSessionCut(input: {
  context: Pick<
    FitSessionCallContext,
    'store' | 'sessionId' | 'summarizer' | 'persist' | 'onSummarizerCall' | 'now' | 'signal'
  >;
  prepared: PreparedSession;
  passing: number;
  trigger: 'overflow' | 'soft-limit' | 'command';
  capTokens: number;
}): Promise<{ compression: SessionCompression; actions: CompactionAction[] }> {
  const { context, prepared, passing } = input;
  const compression = prepared.compression;
  const rolled = await rollSummary({
    periods: periodsOf(compression.summary, prepared.cutCount),
    messages: prepared.conversation.slice(prepared.cutCount, prepared.cutCount + passing),
    from: prepared.cutCount + 1,
    capTokens: input.capTokens,
    counter: prepared.counter,
    summarizer: context.summarizer,
    ...(context.signal === undefined ? {} : { signal: context.signal }),
    ...(context.onSummarizerCall === undefined ? {} : { onCall: context.onSummarizerCall }),
  });
  const through = prepared.conversation[prepared.cutCount + passing - 1] as Message;
  const first = prepared.conversation[0] as Message;
  const summary: HistorySummary = {
    text: rolled.text,
    fromMessageId: first.id,
    throughMessageId: through.id,
    coveredCount: prepared.state.messages.findIndex((message) => message.id === through.id) + 1,
    summarizer: rolled.summarizer,
    createdAt: context.now().toISOString(),
    periods: rolled.periods,
  };
  const next = { ...compression, summary };
  const actions: CompactionAction[] = [
    {
      type: 'compacted',
      trigger: input.trigger,
      messages: passing,
      throughMessageId: through.id,
      summaryTokens: rolled.tokens,
      summarizer: rolled.summarizer,
    },
  ];
  if (rolled.failure !== undefined) {
    actions.push({
      type: 'summarizer-failed',
      summarizer: context.summarizer.name,
      error: rolled.failure,
      fallback: rolled.summarizer,
    });
  }
  if (!context.persist) return { compression: next, actions };
  const { revision: _revision, ...fields } = next;
  const stored = await context.store.saveCompression(context.sessionId, fields, {
    expectedRevision: compression.revision,
  });
  return { compression: stored, actions };
}

/**
 * The periods of a stored summary; a summary written before rolling summaries is one period
 * standing for its whole run (what it claimed).
 */
export function periodsOf(summary: HistorySummary | null, cutCount: number): SummaryPeriod[] {
  if (summary === null || cutCount === 0) return [];
  if (summary.periods !== undefined) return summary.periods;
  return [
    {
      from: 1,
      count: cutCount,
      fromMessageId: summary.fromMessageId,
      throughMessageId: summary.throughMessageId,
      level: 1,
      text: summary.text,
      summarizer: summary.summarizer,
    },
  ];
}
