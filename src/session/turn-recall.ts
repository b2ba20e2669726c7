import { todoContextBlocks } from '../compression/index.ts';
import {
  type CompiledContext,
  type ContextSource,
  countMessage,
  historyBlockId,
  type Message,
  type TokenCounter,
} from '../core/index.ts';
import type { ContextConfig } from '../workspace/index.ts';
import { recallTokens, TOOL_EVIDENCE_SHOWN } from './compressed-forms.ts';
import { messagesById } from './conversation-positions.ts';
import { inputBudgetOf, type LongSessionSettings } from './long-session-settings.ts';
import {
  createRecallSource,
  type HeldRecall,
  RECALL_LAYER,
  type RecallSourceOptions,
  type SessionIndexes,
} from './session-recall.ts';
import type { SessionCompression } from './session-store.ts';

/**
 * The room a call's tool steps take (decision 077): the turn's newest step (its last assistant
 * message and the outputs after it) at its own size, the earlier steps as the call sent them —
 * an earlier output that became a placeholder counts as its placeholder, not as the output it
 * stands for. What {@link SessionIndexes.noteSteps} remembers and {@link recallCapFor} leaves.
 */
export function stepTokensTaken(
  compiled: CompiledContext,
  steps: readonly Message[],
  counter: TokenCounter,
): number {
  if (steps.length === 0) return 0;
  const newest = Math.max(
    0,
    steps.findLastIndex((message) => message.role === 'assistant'),
  );
  let tokens = 0;
  for (const message of steps.slice(newest)) tokens += countMessage(counter, message);
  if (newest === 0) return tokens;
  const earlier = new Set(steps.slice(0, newest).map(historyBlockId));
  const kept = compiled.report.layers.find((layer) => layer.layer === 'history')?.kept ?? [];
  // The steps a call sends are its last history blocks: only those are read.
  for (let at = Math.max(0, kept.length - steps.length); at < kept.length; at++) {
    const block = kept[at] as (typeof kept)[number];
    if (earlier.has(block.id)) tokens += block.tokens;
  }
  return tokens;
}

/**
 * The recall's limits for the calls of one turn (decision 068): `tokens`, set by the first call
 * that leaves the turn's steps too little room (or by a step that shrank a hold, see
 * {@link settleTurnRecall}); `unheld` once that first call ended the hold it was sent from.
 */
export interface TurnRecallCap {
  tokens: number | undefined;
  unheld: boolean;
}

/** A turn's {@link TurnRecallCap} before any call has set it. */
export function newTurnRecallCap(): TurnRecallCap {
  return { tokens: undefined, unheld: false };
}

/**
 * What every call of a long session's turn does after its compile, the chat turn's and an
 * agent's alike (decisions 063, 068, 077): the turn's first call that leaves its steps less
 * room than the last turns' steps took caps the recall for the rest of the turn and compiles
 * again (`recompile`, once) — a hold it was sent from ends, its messages ranked afresh after
 * the history (a cut hold before the history would shrink again at the next turn, re-sending
 * the history each time); the hold follows what the call sent (`nextHold`), and a step that
 * shrank it is compiled again with what the next turn will be sent, so the hold changes once;
 * the room its steps took is noted for the next turns — all only when the call is
 * `persist`ed (a preview reads and writes nothing). Returns the compile to send.
 */
export async function settleTurnRecall<T>(input: {
  compiled: T;
  compiledOf: (made: T) => CompiledContext;
  /** Compiles the call again; its recall reads `recallCap`, just set. */
  recompile: () => Promise<T>;
  /** The recall of the last compile; undefined when it sent none or ranks by vectors. */
  recall: () => TurnRecall | undefined;
  recallCap: TurnRecallCap;
  steps: readonly Message[];
  counter: TokenCounter;
  indexes: SessionIndexes;
  sessionId: string;
  /** Whose hold and steps (see {@link turnRecallOf}); the chat turn's by default. */
  holder?: string;
  /** The turn the call answers; undefined: no steps are noted. */
  turnId: string | undefined;
  persist: boolean;
}): Promise<T> {
  const { indexes, sessionId, holder, recallCap } = input;
  let compiled = input.compiled;
  let taken = stepTokensTaken(input.compiledOf(compiled), input.steps, input.counter);
  const recompile = async () => {
    compiled = await input.recompile();
    taken = stepTokensTaken(input.compiledOf(compiled), input.steps, input.counter);
  };
  const first = input.recall();
  if (first !== undefined && recallCap.tokens === undefined) {
    const room = indexes.stepRoom(sessionId, input.turnId, holder) - taken;
    const cap = recallCapFor(input.compiledOf(compiled), room);
    if (cap !== undefined) {
      recallCap.tokens = cap;
      // The cap is below what the call recalled: a hold would be cut, so it ends instead.
      if (first.held !== undefined) recallCap.unheld = true;
      await recompile();
    }
  }
  if (!input.persist) return compiled;
  const recall = input.recall();
  if (recall !== undefined) {
    const current = indexes.heldRecall(sessionId, holder);
    const next = nextHold({ recall, compiled: input.compiledOf(compiled), current, stepTokens: taken });
    // A step that cut the hold, and cut it further for the next turn's steps: this call sends
    // what the next turn will, so the history behind the hold is re-sent once, not twice.
    const heldTokens =
      recall.outcome?.held === true ? tokensOfHeld(input.compiledOf(compiled), next) : undefined;
    if (heldTokens !== undefined) {
      recallCap.tokens = Math.min(recallCap.tokens ?? heldTokens, heldTokens);
      await recompile();
    }
    indexes.holdRecall(sessionId, next, holder);
  }
  // Every call of a turn is noted (a turn without steps as 0), so the room follows the last turns.
  if (input.turnId !== undefined) indexes.noteSteps(sessionId, input.turnId, taken, holder);
  return compiled;
}

/**
 * The recall's tokens, separators included, of the messages `next` holds, when the call sent
 * more of them than that (`nextHold` dropped some for the steps' room); else undefined.
 */
function tokensOfHeld(compiled: CompiledContext, next: HeldRecall | undefined): number | undefined {
  const keep = new Set(next?.ids);
  let sent = 0;
  let tokens = 0;
  for (const block of compiled.kept) {
    if (block.layer !== RECALL_LAYER) continue;
    sent++;
    if (keep.has(block.metadata.messageId as string)) tokens += block.tokens + 1;
  }
  return keep.size < sent ? tokens : undefined;
}

/**
 * The recall's cap for a turn's calls (decision 068): when the call leaves less free than
 * `roomTokens` (what the turn's steps are expected to take), the recall sent less the missing
 * room; `undefined` when the call leaves that room or sends no recall.
 */
export function recallCapFor(compiled: CompiledContext, roomTokens: number): number | undefined {
  if (roomTokens <= 0) return undefined;
  const { report, kept } = compiled;
  const free = report.inputBudget - report.totalTokens;
  if (free >= roomTokens) return undefined;
  let recalled = 0;
  // Each recalled block and its separator (select-call's one token).
  for (const block of kept) if (block.layer === RECALL_LAYER) recalled += block.tokens + 1;
  return recalled === 0 ? undefined : Math.max(0, recalled - (roomTokens - free));
}

/** A session's recall for this call: the hold it is sent from, and its collect's outcome. */
export interface TurnRecall {
  throughMessageId: string;
  held: HeldRecall | undefined;
  outcome: { held: boolean; whole: readonly string[] | undefined } | undefined;
}

/**
 * What a session holds after a compile (decision 063): the held recall less what the call
 * dropped, or a new hold when the recall was whole and all of it was sent; else nothing. A
 * step that had to drop held messages drops as many more as its steps took, so the next
 * turn's steps find that room without changing the recall again.
 */
export function nextHold(input: {
  recall: TurnRecall;
  compiled: CompiledContext;
  /** What the session holds now (made by an earlier call of this turn, or before). */
  current: HeldRecall | undefined;
  /** Tokens of the turn's steps in this call. */
  stepTokens: number;
}): HeldRecall | undefined {
  const { recall, compiled } = input;
  const outcome = recall.outcome;
  if (outcome === undefined) return undefined;
  const sent = new Map<string, number>();
  for (const block of compiled.kept) {
    if (block.layer === RECALL_LAYER) sent.set(block.metadata.messageId as string, block.tokens + 1);
  }
  // The hold this call continues: the one it was sent from, or the one its turn made.
  const base = outcome.held
    ? recall.held
    : input.current?.whole === outcome.whole
      ? input.current
      : undefined;
  if (base !== undefined) {
    const ids = base.ids.filter((id) => sent.has(id));
    if (ids.length < base.ids.length && input.stepTokens > 0) {
      let freed = 0;
      while (ids.length > 0 && freed < input.stepTokens) freed += sent.get(ids.pop() as string) ?? 0;
    }
    return ids.length === 0 ? undefined : { ...base, ids };
  }
  const whole = outcome.whole;
  if (whole === undefined || whole.some((id) => !sent.has(id))) return undefined;
  return { throughMessageId: recall.throughMessageId, whole, ids: whole };
}

/**
 * How a call's recall starts from the session's hold and records what it did (decision 063),
 * for `holder` (the chat turn's by default, or an agent's, decision 076): the options to give
 * {@link sessionRecallSource}, and the {@link TurnRecall} — defined once the source asked for its
 * hold, which it does only when it ranks lexically (a vector ranking finds every message, so
 * nothing is held). Held only behind the same cut.
 */
export function turnRecallOf(input: {
  indexes: SessionIndexes;
  sessionId: string;
  holder?: string;
  throughMessageId: string;
  /** The turn's limits: the recall's cap, and whether the turn ended the hold. */
  cap: TurnRecallCap;
}): {
  recall: () => TurnRecall | undefined;
  options: Required<Pick<Parameters<typeof sessionRecallSource>[0], 'held' | 'onCollect' | 'capTokens'>>;
} {
  const { throughMessageId } = input;
  const stored = input.indexes.heldRecall(input.sessionId, input.holder);
  let asked = false;
  // Behind the same cut, until a turn's first call ends the hold (see settleTurnRecall).
  const turnRecall: TurnRecall = {
    throughMessageId,
    get held() {
      return asked && !input.cap.unheld && stored?.throughMessageId === throughMessageId ? stored : undefined;
    },
    outcome: undefined,
  };
  return {
    recall: () => (asked ? turnRecall : undefined),
    options: {
      held: (vectors) => {
        if (vectors) return undefined;
        asked = true;
        // Read at each collect: the layer order and the source see the same hold.
        return () => turnRecall.held;
      },
      onCollect: (outcome) => {
        turnRecall.outcome = outcome;
      },
      capTokens: () => input.cap.tokens,
    },
  };
}

/**
 * A long session's recall for one call (decision 040): the session's conversation index
 * brought up to `indexed`, the messages behind the cut (`cutCount`) that `eligible` allows,
 * packed into what the summary and the TODO views leave of their verbatim size. The chat
 * turn's compile and an agent's call of a process turn (decision 066) recall through it.
 */
export async function sessionRecallSource(input: {
  sessionId: string;
  indexes: SessionIndexes;
  /** The messages the index holds (uncurated): the session's conversation, and a turn's new ones. */
  indexed: readonly Message[];
  /** The conversation as the model sees it (curated), oldest first. */
  conversation: readonly Message[];
  cutCount: number;
  /** Whether a message behind the cut may be recalled (not curated, not sent in another form). */
  eligible: (messageId: string) => boolean;
  settings: LongSessionSettings;
  config: ContextConfig;
  compression: SessionCompression;
  counter: TokenCounter;
  /**
   * The recall held from call to call (decision 063), asked once the index knows whether it
   * ranks by vectors (a vector ranking finds every message, so nothing is held then).
   */
  held?: (vectors: boolean) => (() => HeldRecall | undefined) | undefined;
  /** Receives each collect's outcome (see {@link RecallSourceOptions.onCollect}). */
  onCollect?: RecallSourceOptions['onCollect'];
  /** The recall's limit for one turn's calls (see {@link RecallSourceOptions.capTokens}). */
  capTokens?: RecallSourceOptions['capTokens'];
}): Promise<ContextSource> {
  const { conversation, cutCount, compression, config, counter } = input;
  const index = input.indexes.sync(input.sessionId, input.indexed);
  const vectors = await input.indexes.syncVectors(input.sessionId, input.indexed);
  // Shared with the arrays that extend this conversation: entries past it are bound by the cut.
  const byId = messagesById(conversation);
  const held = input.held?.(vectors !== undefined);
  return createRecallSource({
    index,
    messages: byId,
    ...(vectors === undefined ? {} : { vectors }),
    ...(held === undefined ? {} : { held }),
    ...(input.onCollect === undefined ? {} : { onCollect: input.onCollect }),
    ...(input.capTokens === undefined ? {} : { capTokens: input.capTokens }),
    eligible: (id) => {
      const entry = byId.get(id);
      return entry !== undefined && entry.position <= cutCount && input.eligible(id);
    },
    maxTokens: recallTokens({
      ratio: input.settings.recallRatio,
      config,
      conversation,
      cutCount,
      summary: compression.summary?.text ?? '',
      todo:
        compression.structured === null
          ? []
          : todoContextBlocks(compression.structured, {
              toolEvidence: TOOL_EVIDENCE_SHOWN,
              counter,
              maxTokens: inputBudgetOf(config),
            }).map((block) => block.content),
      counter,
    }),
  });
}
