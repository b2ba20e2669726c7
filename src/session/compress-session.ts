import { randomUUID } from 'node:crypto';
import type { LanguageModel } from 'ai';
import {
  type CompressionState,
  type CompressScope,
  createCompressionState,
  createHeuristicRequirementProposer,
  createModelRequirementProposer,
  formatThreadId,
  type RequirementProposer,
  registerArtifact,
  registerToolEvidence,
  updateRequirementTodoSnapshot,
} from '../compression/index.ts';
import { createCallLogWriter } from '../core/call-log-writer.ts';
import type { CompiledContext } from '../core/compile-types.ts';
import { conversationMessages, isModelMessage } from '../core/conversation-messages.ts';
import {
  CtxloomError,
  createExtractiveSummarizer,
  type Message,
  messageText,
  type Summarizer,
  type TokenCounter,
} from '../core/index.ts';
import { messageParts } from '../core/message.ts';
import { rollSummary } from '../core/rolling-summary.ts';
import {
  applyCuration,
  type CurationStatus,
  foldCurationEvents,
  type PlaceholderLocale,
} from '../workspace/index.ts';
import { coveredCount } from './compressed-forms.ts';
import { periodsOf } from './fit-session-call.ts';
import type { HistorySummary, SessionCompression, SessionState, SessionStore } from './session-store.ts';

/** Default recent messages `/compress` leaves verbatim. */
export const DEFAULT_KEEP_LAST = 4;
/** Default most tokens of the history summary. */
export const DEFAULT_SUMMARY_MAX_TOKENS = 600;

/** Options of {@link compressSession}. */
export interface CompressSessionOptions {
  store: SessionStore;
  sessionId: string;
  /** `all` (summary, requirements, artifacts), `requirement` or `artifacts`. Default `all`. */
  scope?: CompressScope;
  /** Recent messages left verbatim (0..1000). Default {@link DEFAULT_KEEP_LAST}. */
  keepLast?: number;
  /** Most tokens of the summary (64..8000). Default {@link DEFAULT_SUMMARY_MAX_TOKENS}. */
  maxTokens?: number;
  /** Counter of the session's model (bounds the extractive summary). */
  counter: TokenCounter;
  /** Default: the extractive summariser (offline). */
  summarizer?: Summarizer;
  /** Proposes requirement ops; default the model's structured output when `model` is set, else the offline heuristic. */
  proposer?: RequirementProposer;
  model?: LanguageModel;
  /** Language of curation placeholders in the summary. Default `zh` (the manifest default). */
  placeholderLocale?: PlaceholderLocale;
  now?: () => Date;
  signal?: AbortSignal;
  /**
   * The turn a model summariser's calls are logged under in the call log (the `/compress`
   * message's id). Default `compress:<ISO time>`.
   */
  turnId?: string;
  /** Ids of logged calls. Default `randomUUID`. */
  createId?: () => string;
  /**
   * Stores the result (default true). False returns the state it would store, at the current
   * revision, for a caller that decides after compiling with it (the engine's `/compress`).
   */
  write?: boolean;
}

/** What the history summary of a `/compress` covers now, and what this run added. */
export interface SummaryOutcome {
  /** Coverage after the run (`null`: nothing summarised yet). */
  summary: HistorySummary | null;
  /** Messages this run was asked to cover (older than the kept tail, not yet covered). */
  requested: number;
  /** Messages this run added to the coverage. */
  newlyCovered: number;
  /** Asked for but not covered: the summariser ran out of room. They stay in history as they are. */
  notCovered: number;
  /** Tokens of the summary text. */
  tokens: number;
  /** The configured summariser's error when it failed and the extractive one stood in (said in the answer). */
  summarizerFailure?: string;
}

/** Result of {@link compressSession}. */
export interface CompressSessionResult {
  scope: CompressScope;
  summary: SummaryOutcome | null;
  requirements: {
    processedMessages: number;
    applied: number;
    rejected: number;
    /** Messages the model proposer failed on, done by the offline heuristic instead. */
    fallbacks: number;
    items: number;
  } | null;
  artifacts: { evidence: number; artifacts: number } | null;
  compression: SessionCompression;
}

/**
 * `/compress` for a session (seed 004 §10): updates the history summary, the requirement
 * TODO (with verbatim evidence anchors) and the artifact index, and stores them in one
 * compression write. It respects curation: dismissed messages enter the summary only as
 * their placeholder, excluded ones not at all. Summaries are incremental and honest: the
 * summary covers a contiguous run from the session's first message, extended from the
 * previous coverage, and a summariser that cannot fit everything covers fewer messages and
 * says so (`notCovered`) — those stay in history. `messages` are never changed.
 */
export async function compressSession(options: CompressSessionOptions): Promise<CompressSessionResult> {
  const { store, sessionId } = options;
  const scope = options.scope ?? 'all';
  const state = await store.load(sessionId);
  const now = options.now ?? (() => new Date());
  let compression = state.compression;
  const next: Omit<SessionCompression, 'revision'> = {
    summary: compression.summary,
    structured: compression.structured,
    processedThrough: { ...compression.processedThrough },
  };
  const stored = state.messages.filter((message) => message.role !== 'system');
  const statuses = foldCurationEvents(state.curation);

  let summary: SummaryOutcome | null = null;
  if (scope === 'all') {
    summary = await extendSummary({ options, state, stored, statuses, now });
    next.summary = summary.summary;
  }
  let requirements: CompressSessionResult['requirements'] = null;
  let artifacts: CompressSessionResult['artifacts'] = null;
  if (scope === 'all' || scope === 'requirement') {
    const result = await updateRequirements({
      options,
      state,
      stored,
      statuses,
      structured: next.structured,
    });
    next.structured = result.structured;
    next.processedThrough.requirements = stored.at(-1)?.id ?? next.processedThrough.requirements;
    requirements = result.outcome;
  }
  if (scope === 'all' || scope === 'artifacts') {
    const result = indexArtifacts({ state, stored, statuses, structured: next.structured, now });
    next.structured = result.structured;
    next.processedThrough.artifacts = stored.at(-1)?.id ?? next.processedThrough.artifacts;
    artifacts = result.outcome;
  }
  // Seed 004 §10.1: `/compress` turns on clipping for the session — a runtime process's agents
  // compile every later payload under the soft limit (the notebook's compile is always within
  // the budget).
  // What was compressed stays compressed: `/compress artifacts` after `/compress requirement`
  // keeps the requirements compact too (the scope only ever widens).
  const previousScope = state.compression.structured?.forceContextClipping
    ? state.compression.structured.clippingScope
    : null;
  next.structured = {
    ...ensureStructured(state, next.structured),
    forceContextClipping: true,
    clippingScope: previousScope === null || previousScope === scope ? scope : 'all',
  };
  compression =
    options.write === false
      ? { ...next, revision: compression.revision }
      : await store.saveCompression(sessionId, next, { expectedRevision: compression.revision });
  return { scope, summary, requirements, artifacts, compression };
}

async function extendSummary(input: {
  options: CompressSessionOptions;
  state: SessionState;
  stored: Message[];
  statuses: Map<string, CurationStatus>;
  now: () => Date;
}): Promise<SummaryOutcome> {
  const { options, statuses } = input;
  const previous = input.state.compression.summary;
  // The conversation the model sees (commands are never conversation; they never break coverage).
  const conversation = applyCuration(
    conversationMessages(input.stored),
    statuses,
    options.placeholderLocale ?? 'zh',
  );
  const cutCount = previous === null ? 0 : coveredCount(input.stored, previous.throughMessageId);
  // The new cut: before the kept tail, at the start of a turn (never between a call and its result).
  let end = conversation.length - Math.min(1000, Math.max(0, options.keepLast ?? DEFAULT_KEEP_LAST));
  while (end > cutCount && end < conversation.length && conversation[end]?.role !== 'user') end--;
  const counter = options.counter;
  const unchanged = (requested: number): SummaryOutcome => ({
    summary: previous,
    requested,
    newlyCovered: 0,
    notCovered: requested,
    tokens: previous === null ? 0 : counter.countText(previous.text),
  });
  if (end <= cutCount) return unchanged(0);
  const summarizer = options.summarizer ?? createExtractiveSummarizer({ counter });
  const maxTokens = Math.min(8000, Math.max(64, options.maxTokens ?? DEFAULT_SUMMARY_MAX_TOKENS));
  const rolled = await rollSummary({
    periods: periodsOf(previous, cutCount),
    messages: conversation.slice(cutCount, end),
    from: cutCount + 1,
    capTokens: maxTokens,
    counter,
    summarizer,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    onCall: logModelCall(options, summarizer.name, 'summarizer', input.now),
  });
  const through = conversation[end - 1] as Message;
  const first = conversation[0] as Message;
  return {
    summary: {
      text: rolled.text,
      fromMessageId: first.id,
      throughMessageId: through.id,
      coveredCount: position(input.stored, through.id) + 1,
      summarizer: rolled.summarizer,
      createdAt: input.now().toISOString(),
      periods: rolled.periods,
    },
    requested: end - cutCount,
    newlyCovered: end - cutCount,
    notCovered: 0,
    tokens: rolled.tokens,
    ...(rolled.failure === undefined ? {} : { summarizerFailure: rolled.failure }),
  };
}

function position(stored: readonly Message[], id: string): number {
  return stored.findIndex((message) => message.id === id);
}

/**
 * Logs each model call a summariser or proposer of `/compress` makes, before it is sent, as a
 * call of agent `summarizer` or `proposer` under the command's turn.
 */
function logModelCall(
  options: CompressSessionOptions,
  model: string,
  agentId: 'summarizer' | 'proposer',
  now: () => Date,
) {
  const turnId = options.turnId ?? `compress:${now().toISOString()}`;
  const createId = options.createId ?? randomUUID;
  const calls = createCallLogWriter({
    turnId,
    model,
    agentId,
    createId,
    now,
    append: (record) => options.store.appendCall(options.sessionId, record),
  });
  let step = 0;
  return async (compiled: CompiledContext) => {
    await calls.log(compiled, step++);
  };
}

function ensureStructured(state: SessionState, structured: CompressionState | null): CompressionState {
  return (
    structured ??
    createCompressionState({
      threadId: formatThreadId({ app: 'ctxloom', userId: 'local', sessionId: state.sessionId }),
    })
  );
}

/** Messages after `throughId` (all when `null`), skipping commands and curated ones. */
function unprocessed(
  stored: readonly Message[],
  throughId: string | null,
  statuses: Map<string, CurationStatus>,
): Message[] {
  const start = throughId === null ? 0 : stored.findIndex((message) => message.id === throughId) + 1;
  return stored.slice(start).filter((message) => !statuses.has(message.id) && isModelMessage(message));
}

async function updateRequirements(input: {
  options: CompressSessionOptions;
  state: SessionState;
  stored: Message[];
  statuses: Map<string, CurationStatus>;
  structured: CompressionState | null;
}) {
  const { options } = input;
  let structured = ensureStructured(input.state, input.structured);
  const proposer =
    options.proposer ??
    (options.model === undefined
      ? createHeuristicRequirementProposer()
      : createModelRequirementProposer({ model: options.model }));
  const users = unprocessed(
    input.stored,
    input.state.compression.processedThrough.requirements,
    input.statuses,
  ).filter((message) => message.role === 'user' && messageText(message).trim() !== '');
  let applied = 0;
  let rejected = 0;
  let fallbacks = 0;
  const heuristic = createHeuristicRequirementProposer();
  const logCall = logModelCall(
    options,
    proposer.label ?? 'proposer',
    'proposer',
    options.now ?? (() => new Date()),
  );
  for (const userMessage of users) {
    const turn = input.stored.filter((message) => message.role === 'user').indexOf(userMessage);
    const update = (with_: RequirementProposer) =>
      updateRequirementTodoSnapshot({
        proposer: with_,
        snapshot: structured.requirements.global,
        userMessage,
        turn: Math.max(0, turn),
        counter: options.counter,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        onCall: logCall,
      });
    let result: Awaited<ReturnType<typeof update>>;
    try {
      result = await update(proposer);
    } catch (error) {
      // A model that fails degrades to the offline heuristic for this message, and says so.
      if (!CtxloomError.is(error) || error.code !== 'model-error' || proposer === heuristic) throw error;
      fallbacks += 1;
      result = await update(heuristic);
    }
    if (result.status === 'applied') applied += 1;
    if (result.status === 'rejected') rejected += 1;
    structured = { ...structured, requirements: { ...structured.requirements, global: result.snapshot } };
  }
  const items = structured.requirements.global.items.filter((item) => item.status !== 'cancelled').length;
  return { structured, outcome: { processedMessages: users.length, applied, rejected, fallbacks, items } };
}

function indexArtifacts(input: {
  state: SessionState;
  stored: Message[];
  statuses: Map<string, CurationStatus>;
  structured: CompressionState | null;
  now: () => Date;
}) {
  let structured = ensureStructured(input.state, input.structured);
  let artifactsState = structured.artifacts;
  const clock = () => input.now().getTime();
  const messages = unprocessed(
    input.stored,
    input.state.compression.processedThrough.artifacts,
    input.statuses,
  );
  const calls = new Map<string, { toolName: string; input: unknown }>();
  for (const message of input.stored) {
    for (const part of messageParts(message)) {
      if (part.type === 'tool-call')
        calls.set(part.toolCallId, { toolName: part.toolName, input: part.input });
    }
  }
  let evidence = 0;
  let artifacts = 0;
  for (const message of messages) {
    const position = input.stored.indexOf(message);
    const turnIndex = input.stored.slice(0, position).filter((m) => m.role === 'user').length - 1;
    for (const part of messageParts(message)) {
      if (part.type !== 'tool-result') continue;
      const call = calls.get(part.toolCallId);
      const failed = part.output.type === 'error-text' || part.output.type === 'error-json';
      const output = 'value' in part.output ? part.output.value : (part.output.reason ?? 'denied');
      let artifactId: string | undefined;
      const args = (call?.input ?? {}) as Record<string, unknown>;
      if (
        !failed &&
        part.toolName === 'write_file' &&
        typeof args.path === 'string' &&
        typeof args.content === 'string'
      ) {
        const registered = registerArtifact(
          artifactsState,
          {
            kind: 'document',
            name: args.path,
            agentId: 'assistant',
            content: args.content,
            turnIndex: Math.max(0, turnIndex),
          },
          { clock },
        );
        artifactsState = registered.state;
        artifactId = registered.entry.id;
        artifacts += 1;
      }
      artifactsState = registerToolEvidence(
        artifactsState,
        {
          toolName: part.toolName,
          agentId: 'assistant',
          input: JSON.stringify(call?.input ?? null),
          output: typeof output === 'string' ? output : JSON.stringify(output),
          ok: !failed,
          ...(artifactId === undefined ? {} : { artifactId }),
          turnIndex: Math.max(0, turnIndex),
        },
        { clock },
      ).state;
      evidence += 1;
    }
  }
  structured = { ...structured, artifacts: artifactsState };
  return { structured, outcome: { evidence, artifacts } };
}
