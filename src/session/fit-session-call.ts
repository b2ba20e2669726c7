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
  type TokenCounter,
} from '../core/index.ts';
import type { PreparedSession, SessionCompile } from './compile-session.ts';
import type { LongSessionSettings } from './long-session-settings.ts';
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
  const compileNow = () => prepared.compile(steps === undefined ? {} : { steps });
  const settings = prepared.longSession;
  if (settings === undefined) return { prepared, compiled: await compileNow() };
  // Every move of this call is in its report, not only the last one.
  const actions: CompactionAction[] = [];
  const compiled = await fitWithinBudget({
    settings,
    counter: prepared.counter,
    compile: compileNow,
    core: (call) => call.compiled,
    live: (call) => liveHistory(prepared, call),
    stepping: steps !== undefined && steps.length > 0,
    mayMove: (call, live) => {
      if (context.persist || context.summarizer.summarizeMessage !== undefined) return true;
      call.warnings.push(
        `compaction pending: the next turn moves ${live.length > 1 ? 'older messages' : 'a message'} into the rolling summary with ${context.summarizer.name} first`,
      );
      return false;
    },
    move: async (passing, trigger, capTokens) => {
      const compaction = await moveSessionCut({ context, prepared, passing, trigger, capTokens });
      actions.push(...compaction.actions);
      prepared = await context.prepare(
        context.persist
          ? { actions: [...actions] }
          : { compression: compaction.compression, actions: [...actions] },
      );
    },
  });
  return { prepared, compiled };
}

/** One call of a long session fitted by {@link fitWithinBudget}: how it compiles and moves its cut. */
export interface FitLoop<T> {
  settings: LongSessionSettings;
  counter: TokenCounter;
  /** Compiles the call from the current state (after every move, again). */
  compile: () => Promise<T>;
  /** The core compile of a compiled call. */
  core: (compiled: T) => CompiledContext;
  /** The messages after the cut the cut may pass: never the call's own turn. */
  live: (compiled: T) => readonly Message[];
  /**
   * The caller has its own compact stage (a process's, seed 004), whose soft trigger and hard
   * limit stand: the cut moves only when history would be dropped for lack of room, and a
   * call still over its budget is the stage's to refuse. Default false.
   */
  ownStage?: boolean;
  /**
   * The call is a step of a turn's tool loop: the recall only gives way (decision 063) — it
   * shrinks as the steps grow, and the cut moves only for what the recall cannot free, so
   * the recall's slot is not counted against the soft limit. Default false.
   */
  stepping?: boolean;
  /** Whether the cut may move now (a preview whose summariser calls a model may not). Default yes. */
  mayMove?: (compiled: T, live: readonly Message[]) => boolean;
  /** Moves the cut past `passing` live messages, the summary under `capTokens`; the next compile reads it. */
  move: (passing: number, trigger: 'overflow' | 'soft-limit', capTokens: number) => Promise<void>;
}

/**
 * The long-session rule of decision 040 for one call, whatever compiles it (a chat turn's
 * session compile, an agent's call in a process session — decision 066): when the call would
 * pass the soft limit or drop history for lack of room, the cut moves forward and the call is
 * compiled again, at most {@link MAX_MOVES} times; a call still over its input budget fails
 * with `over-budget`.
 */
export async function fitWithinBudget<T>(loop: FitLoop<T>): Promise<T> {
  const { settings } = loop;
  let compiled = await loop.compile();
  for (let move = 0; move < MAX_MOVES; move++) {
    const core = loop.core(compiled);
    const live = loop.live(compiled);
    const budget = core.report.inputBudget;
    const fullSlot = Math.floor(settings.recallRatio * budget);
    // The recall's slot only ever shrinks below its whole share (decision 069), which makes a
    // move rarer: a call the whole share does not move stays, and costs no more than that check.
    const whole = triggerOf(core, settings.softLimitRatio, loop.stepping === true ? 0 : fullSlot);
    if (live.length === 0 || whole === undefined) break;
    const summaryCap = Math.floor(settings.summaryRatio * budget);
    // What the recent history and the recall share under the soft limit.
    const available =
      Math.floor(settings.softLimitRatio * budget) -
      fixedTokens(core, new Set(live.map((message) => message.id))) -
      summaryCap;
    const liveTokens = live.map((message) => countMessage(loop.counter, message));
    // The recall's slot gives way to the last turn and to the room it grows in after a move
    // (decision 069); in a tool step it gives way to everything (decision 063).
    const lastTurn = lastTurnStart(live);
    let lastTurnTokens = 0;
    for (let index = lastTurn; index < live.length; index++) lastTurnTokens += liveTokens[index] as number;
    const givenSlot = Math.max(
      0,
      Math.min(fullSlot, available - Math.ceil(lastTurnTokens / settings.keepRatio)),
    );
    const trigger =
      loop.stepping === true || givenSlot === fullSlot
        ? whole
        : triggerOf(core, settings.softLimitRatio, givenSlot);
    if (trigger === undefined) break;
    if (trigger === 'soft-limit' && loop.ownStage === true) break;
    if (loop.mayMove?.(compiled, live) === false) break;
    // At a turn's first call the last turn stays while it fits beside the fixed layers (the
    // recall gives way to it), unless history was already dropped for lack of room. A tool
    // step's own outputs come first, and its move plans with the recall's whole slot (063).
    const protect = loop.stepping !== true && trigger === 'soft-limit' && lastTurnTokens <= available;
    // The room is counted under the soft limit, so after a move the history grows for
    // (1 − keepRatio) of it before the next move: the cut stays put for many turns.
    const room = available - (loop.stepping === true ? fullSlot : givenSlot);
    let passing = planHistoryCut({
      live,
      tokens: liveTokens,
      roomTokens: room,
      keepRatio: settings.keepRatio,
    });
    const kept = protect ? lastTurn : live.length;
    if (passing > kept) passing = kept;
    // Over budget although the plan found room (other layers grew): the next turn goes.
    if (passing === 0) passing = Math.min(nextTurnStart(live), kept);
    if (passing === 0) break;
    await loop.move(passing, trigger, summaryCap);
    compiled = await loop.compile();
  }
  const { report } = loop.core(compiled);
  if (report.totalTokens > report.inputBudget && loop.ownStage !== true) {
    // A tool step is over with its own turn's steps: the message is not what to shorten.
    const remedy =
      loop.stepping === true
        ? "this turn's tool steps, even as placeholders and page stubs, do not fit beside the session's fixed layers (raise budget.window, or ask for fewer tool calls in one turn)"
        : "shorten the message or the session's fixed layers";
    throw new CtxloomError({
      code: 'over-budget',
      message: `the call needs ${report.totalTokens} input tokens with no history left to move behind the cut; the input budget is ${report.inputBudget} (${remedy})`,
      path: 'budget.window',
    });
  }
  return compiled;
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
  compiled: CompiledContext,
  softLimitRatio: number,
  recallSlot: number,
): 'overflow' | 'soft-limit' | undefined {
  const dropped = compiled.dropped.some(
    (entry) => entry.block.layer === 'history' && entry.reason.type === 'over-budget',
  );
  if (dropped) return 'overflow';
  let recall = 0;
  for (const block of compiled.kept) if (block.layer === 'recall__context') recall += block.tokens + 1;
  const firm = compiled.report.totalTokens - Math.max(0, recall - recallSlot);
  if (firm > softLimitRatio * compiled.report.inputBudget) return 'soft-limit';
  return undefined;
}

/** Tokens of the call that moving the cut cannot free: all but the live history, summary and recall. */
function fixedTokens(compiled: CompiledContext, liveIds: ReadonlySet<string>): number {
  let movable = 0;
  for (const block of compiled.kept) {
    if (block.layer === 'compression__context' || block.layer === 'recall__context') movable += block.tokens;
    else if (block.layer === 'history') {
      const id = (block.metadata as { message?: Message }).message?.id;
      if (id !== undefined && liveIds.has(id)) movable += block.tokens;
    }
  }
  return Math.max(0, compiled.report.totalTokens - movable);
}

/** Where the last turn of `live` starts: its last user message (0 when none). */
function lastTurnStart(live: readonly Message[]): number {
  for (let index = live.length - 1; index > 0; index--) if (live[index]?.role === 'user') return index;
  return 0;
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
  const { context, prepared } = input;
  const compression = prepared.compression;
  const rolled = await rollSessionCut({
    ...input,
    summary: compression.summary,
    conversation: prepared.conversation,
    cutCount: prepared.cutCount,
    counter: prepared.counter,
    coveredCount: (throughId) => prepared.state.messages.findIndex((message) => message.id === throughId) + 1,
  });
  const next = { ...compression, summary: rolled.summary };
  if (!context.persist) return { compression: next, actions: rolled.actions };
  const { revision: _revision, ...fields } = next;
  const stored = await context.store.saveCompression(context.sessionId, fields, {
    expectedRevision: compression.revision,
  });
  return { compression: stored, actions: rolled.actions };
}

/**
 * The summary after the cut moves past `passing` messages after it (decision 040): the
 * passing messages rolled into the summary's periods under `capTokens`, with the `compacted`
 * action (and `summarizer-failed` when the extractive summariser stood in) for the next
 * call's report. Stores nothing: a chat turn's move stores it at once, a process turn's after
 * its run (decision 066).
 */
export async function rollSessionCut(input: {
  context: Pick<FitSessionCallContext, 'summarizer' | 'onSummarizerCall' | 'now' | 'signal'>;
  summary: HistorySummary | null;
  /** The conversation as the model sees it, oldest first (positions as in the periods). */
  conversation: readonly Message[];
  cutCount: number;
  counter: TokenCounter;
  passing: number;
  trigger: 'overflow' | 'soft-limit' | 'command';
  capTokens: number;
  /** The summary's `coveredCount` for its new last message. */
  coveredCount: (throughMessageId: string) => number;
}): Promise<{ summary: HistorySummary; actions: CompactionAction[] }> {
  const { context, conversation, cutCount, passing } = input;
  const rolled = await rollSummary({
    periods: periodsOf(input.summary, cutCount),
    messages: conversation.slice(cutCount, cutCount + passing),
    from: cutCount + 1,
    capTokens: input.capTokens,
    counter: input.counter,
    summarizer: context.summarizer,
    ...(context.signal === undefined ? {} : { signal: context.signal }),
    ...(context.onSummarizerCall === undefined ? {} : { onCall: context.onSummarizerCall }),
  });
  const through = conversation[cutCount + passing - 1] as Message;
  const first = conversation[0] as Message;
  const summary: HistorySummary = {
    text: rolled.text,
    fromMessageId: first.id,
    throughMessageId: through.id,
    coveredCount: input.coveredCount(through.id),
    summarizer: rolled.summarizer,
    createdAt: context.now().toISOString(),
    periods: rolled.periods,
  };
  const actions: CompactionAction[] = [
    {
      type: 'compacted',
      trigger: input.trigger,
      messages: passing,
      throughMessageId: through.id,
      summaryTokens: rolled.tokens,
      summarizer: rolled.summarizer,
      carried: rolled.periods.reduce((sum, period) => sum + (period.carried?.length ?? period.count), 0),
      covered: rolled.periods.reduce((sum, period) => sum + period.count, 0),
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
  return { summary, actions };
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
