import type { ContextBlock } from './block.ts';
import type { CompiledContext } from './compile-types.ts';
import { CtxloomError } from './errors.ts';
import type { HistoryBlockMetadata } from './history.ts';
import type { Selection } from './select.ts';

/**
 * Where one conversation's history starts, kept between calls by a stateless caller (the AI
 * SDK hooks, a step compiler) so the cut only moves forward (decision 040, "Stateless
 * callers"). Core reads it before selecting and, after a call that had to drop history,
 * records the first history message that call sent.
 */
export interface HistoryCutStore {
  /** Id of the first history message that may be sent; undefined: no cut yet. */
  get(): string | undefined;
  /** Records a cut further forward: `messageId` is the first history message sent from now on. */
  set(messageId: string): void;
}

/** Default share of the room a forward cut leaves the history it keeps (`historyKeepRatio`). */
export const DEFAULT_HISTORY_KEEP_RATIO = 0.6;

/**
 * An in-memory {@link HistoryCutStore} for one conversation.
 * @example
 * const historyCut = createHistoryCutStore();
 * await compileContext(request, { counter, window: 16_000, historyCut }); // every turn, same store
 */
export function createHistoryCutStore(initial?: string): HistoryCutStore {
  let messageId = initial;
  return {
    get: () => messageId,
    set(id) {
      messageId = id;
    },
  };
}

/** Throws `invalid-argument` unless `historyKeepRatio` is absent or in (0, 1]. */
export function assertHistoryKeepRatio(ratio: number | undefined): void {
  if (ratio === undefined || (ratio > 0 && ratio <= 1)) return;
  throw new CtxloomError({
    code: 'invalid-argument',
    message: `historyKeepRatio must be in (0, 1], got ${ratio}`,
    path: 'historyKeepRatio',
  });
}

function messageIdOf(block: ContextBlock): string | undefined {
  return (block.metadata as Partial<HistoryBlockMetadata>).message?.id;
}

/**
 * Index in `history` (the call's history candidates) of the stored first kept message: the
 * candidates before it are behind the cut. 0 when nothing is stored or the stored message is
 * not among the candidates (another conversation, or covered by the caller's summary);
 * `end` when the stored message is this call's query (the whole history went behind it).
 * Never past `end`, the first step of the turn (or the history's length).
 */
export function storedCutIndex(input: {
  history: readonly ContextBlock[];
  storedId: string | undefined;
  queryId: string | undefined;
  end: number;
}): number {
  const { history, storedId, end } = input;
  if (storedId === undefined) return 0;
  for (let index = 0; index < end; index++) {
    if (messageIdOf(history[index] as ContextBlock) === storedId) return index;
  }
  return storedId === input.queryId ? end : 0;
}

/**
 * Where a call that had to drop history beyond the stored cut cuts (decision 040, stateless
 * callers): the first turn start (a user message) at or after the selection's own cut such
 * that the history kept from it takes at most `keepRatio` of what this call's history used —
 * the headroom later calls keep before the next forced cut. Falls back to the first
 * boundary outside a tool group that meets the target, then to `limit`. Returns `from`
 * when the selection dropped no history at or after `from`.
 */
export function planForwardCut(input: {
  selection: Selection;
  history: readonly ContextBlock[];
  /** Index of the stored cut (blocks before it are behind it already). */
  from: number;
  /** End of the turn's earlier history: the first step, or the history's length. */
  end: number;
  /** The cut never passes this index. */
  limit: number;
  keepRatio: number;
}): number {
  const { selection, history, from, end } = input;
  const dropped = new Set<string>();
  for (const entry of selection.dropped) {
    if (entry.block.layer === 'history' && entry.reason.type === 'over-budget') dropped.add(entry.block.id);
  }
  let cut = from;
  for (let index = from; index < history.length; index++) {
    if (dropped.has((history[index] as ContextBlock).id)) cut = index + 1;
  }
  if (cut === from) return from;
  const kept = new Set(selection.kept.map((block) => block.id));
  let room = 0;
  for (let index = 0; index < end; index++) {
    const block = history[index] as ContextBlock;
    if (kept.has(block.id)) room += block.tokens;
  }
  const target = Math.floor(room * input.keepRatio);
  // Tokens from each index to `end`, newest first.
  const after: number[] = new Array(end + 1).fill(0);
  for (let index = end - 1; index >= 0; index--) {
    after[index] = (after[index + 1] as number) + (history[index] as ContextBlock).tokens;
  }
  let fallback = -1;
  for (let index = cut; index < Math.min(end, input.limit + 1); index++) {
    if ((after[index] as number) > target) continue;
    const block = history[index] as ContextBlock;
    if ((block.metadata as HistoryBlockMetadata).message?.role === 'user') return index;
    const inGroup = block.group !== undefined && history[index - 1]?.group === block.group;
    if (fallback < 0 && !inGroup) fallback = index;
  }
  return fallback >= 0 ? fallback : Math.max(cut, Math.min(input.limit, end));
}

/**
 * Records a compile's cut in `store`: when the call dropped history (for room, or into a
 * summary), the first history message it sent — or its query, when no earlier message was
 * sent — is where the next call's history starts. A call that dropped nothing records nothing.
 */
export function recordHistoryCut(store: HistoryCutStore, compiled: CompiledContext): void {
  const cut = compiled.dropped.some(
    (entry) =>
      entry.block.layer === 'history' &&
      (entry.reason.type === 'over-budget' || entry.reason.type === 'summarized'),
  );
  if (!cut) return;
  const start = sentHistoryStart(compiled);
  if (start !== undefined && start !== store.get()) store.set(start);
}

/** True when a compile dropped history for room beyond the stored cut (the cut would move). */
export function cutsPastStored(store: HistoryCutStore | undefined, compiled: CompiledContext): boolean {
  const dropped = compiled.dropped.some(
    (entry) => entry.block.layer === 'history' && entry.reason.type === 'over-budget',
  );
  if (!dropped) return false;
  const stored = store?.get();
  return stored === undefined || sentHistoryStart(compiled) !== stored;
}

function sentHistoryStart(compiled: CompiledContext): string | undefined {
  return compiled.history[0]?.id ?? compiled.query?.id;
}
