import {
  assertRevision,
  type CompressionState,
  type CompressionStore,
  createArtifactStoreState,
  createCompressionState,
  createRequirementTodoState,
  type ThreadId,
} from '../../compression/index.ts';
import { CtxloomError } from '../../core/errors.ts';
import { applyCommanderPatch, type CommanderPatch, type PendingRequest } from '../../routing/index.ts';
import type { StateBuilder } from '../../state/index.ts';
import {
  COMPRESSION_KEYS,
  type CompressionSession,
  type CoordinationState,
  type LastTurnRecord,
} from './compression-blackboard.ts';
import {
  type ArtifactsSkeleton,
  type CompressionRecords,
  joinArtifacts,
  joinRequirements,
  type RequirementsSkeleton,
  splitArtifacts,
  splitRequirements,
} from './compression-records.ts';

/** Records each StateBuilder started from (read before any module wrote a delta into it). */
const ORIGINAL_RECORDS = new WeakMap<StateBuilder, CompressionRecords>();

const EMPTY_COORDINATION: CoordinationState = { pendingRequests: [], requestResults: [], userTurns: 0 };

/**
 * The compression module of a StateBuilder: reads and writes the Blackboard's compression
 * fields ({@link COMPRESSION_KEYS}) through `sb.getExtension`/`sb.setExtension`, so every
 * change lands in the node's one patch (`sb.patch()`). It implements the `CompressionStore`
 * port for the one thread the Blackboard belongs to: a load for another thread id returns
 * `undefined`, a save for it is `invalid-argument`; revisions are checked as in every store.
 */
export class CompressionStateModule implements CompressionStore {
  readonly #sb: StateBuilder;

  constructor(sb: StateBuilder) {
    this.#sb = sb;
    // Every write goes through a module, so the first module on a builder sees the snapshot value.
    if (!ORIGINAL_RECORDS.has(sb)) {
      ORIGINAL_RECORDS.set(sb, sb.getExtension<CompressionRecords>(COMPRESSION_KEYS.records) ?? {});
    }
  }

  /** The session's compression state (this patch's pending writes included), or `undefined`. */
  snapshot(): CompressionState | undefined {
    const session = this.#session();
    if (session === null) return undefined;
    const threadId = session.threadId as ThreadId;
    const records = this.#records();
    const requirements = this.#sb.getExtension<RequirementsSkeleton | null>(COMPRESSION_KEYS.requirements);
    const artifacts = this.#sb.getExtension<ArtifactsSkeleton | null>(COMPRESSION_KEYS.artifacts);
    return {
      version: 1,
      threadId,
      revision: session.revision,
      requirements:
        requirements === null || requirements === undefined
          ? createRequirementTodoState({ threadId })
          : joinRequirements(requirements, records),
      artifacts:
        artifacts === null || artifacts === undefined
          ? createArtifactStoreState({ threadId })
          : joinArtifacts(artifacts, records),
      forceContextClipping: session.forceContextClipping,
      clippingScope: session.clippingScope,
    };
  }

  /** The stored state, or a new empty one for `threadId`; another thread's state is `invalid-argument`. */
  ensure(threadId: ThreadId): CompressionState {
    const state = this.snapshot();
    if (state === undefined) return createCompressionState({ threadId });
    this.#assertThread(state.threadId, threadId);
    return state;
  }

  async load(threadId: ThreadId): Promise<CompressionState | undefined> {
    const state = this.snapshot();
    return state === undefined || state.threadId !== threadId ? undefined : structuredClone(state);
  }

  async save(
    state: CompressionState,
    options: { expectedRevision: number | null },
  ): Promise<CompressionState> {
    return this.commit(state, options);
  }

  /**
   * Synchronous {@link save}: checks the revision, writes the changed channels into the patch
   * and returns the state at its new revision.
   */
  commit(state: CompressionState, options: { expectedRevision: number | null }): CompressionState {
    const current = this.snapshot();
    if (current !== undefined) this.#assertThread(current.threadId, state.threadId);
    assertRevision(state.threadId, current?.revision ?? null, options.expectedRevision);
    const next: CompressionState = structuredClone({ ...state, revision: (current?.revision ?? -1) + 1 });
    // Lists go to the records channel (only new or changed records), the rest to skeletons.
    const known = this.#records();
    const records: CompressionRecords = {};
    const requirements = splitRequirements(next.requirements, records);
    const artifacts = splitArtifacts(next.artifacts, records);
    const changed = Object.entries(records).filter(
      ([key, value]) => !(key in known) || !sameJson(known[key], value),
    );
    if (changed.length > 0) {
      this.#sb.setExtension(COMPRESSION_KEYS.records, {
        ...this.#pendingRecords(),
        ...Object.fromEntries(changed),
      });
    }
    const stored = current === undefined ? undefined : splitBoth(current);
    if (stored === undefined || !sameJson(stored.requirements, requirements)) {
      this.#sb.setExtension(COMPRESSION_KEYS.requirements, requirements);
    }
    if (stored === undefined || !sameJson(stored.artifacts, artifacts)) {
      this.#sb.setExtension(COMPRESSION_KEYS.artifacts, artifacts);
    }
    this.#sb.setExtension(COMPRESSION_KEYS.session, {
      threadId: next.threadId,
      revision: next.revision,
      forceContextClipping: next.forceContextClipping,
      clippingScope: next.clippingScope,
      historyFromMessageId: this.#session()?.historyFromMessageId ?? null,
    } satisfies CompressionSession);
    return next;
  }

  /** Applies `update` to the current (or a new) state of `threadId` and commits the result. */
  update(threadId: ThreadId, update: (state: CompressionState) => CompressionState): CompressionState {
    const stored = this.snapshot();
    const base = this.ensure(threadId);
    return this.commit(update(base), { expectedRevision: stored?.revision ?? null });
  }

  /** Applies the commander's patch (`applyCommanderPatch`, revision-checked) and commits it. */
  applyCommanderPatch(patch: CommanderPatch): CompressionState {
    return this.update(patch.threadId as ThreadId, (state) => applyCommanderPatch(state, patch));
  }

  /** Pending requests, answered-request summaries and the user-turn counter. */
  coordination(): CoordinationState {
    return (
      this.#sb.getExtension<CoordinationState | null>(COMPRESSION_KEYS.coordination) ?? EMPTY_COORDINATION
    );
  }

  /** Opens a request (an agent asking the user); an id already present is left as it is. */
  openRequest(request: PendingRequest): void {
    const coordination = this.coordination();
    if (coordination.pendingRequests.some((existing) => existing.id === request.id)) return;
    this.#setCoordination({ ...coordination, pendingRequests: [...coordination.pendingRequests, request] });
  }

  /** Marks requests answered and records a short summary of each answer. */
  resolveRequests(ids: readonly string[], summary: string): void {
    if (ids.length === 0) return;
    const coordination = this.coordination();
    const answered = new Set(ids);
    this.#setCoordination({
      ...coordination,
      pendingRequests: coordination.pendingRequests.map((request) =>
        answered.has(request.id) ? { ...request, status: 'answered' as const } : request,
      ),
      requestResults: [
        ...coordination.requestResults,
        ...ids.map((requestId) => ({ requestId, summary: summary.slice(0, 200) })),
      ],
    });
  }

  /** Counts one handled user message and returns its 0-based turn index. */
  nextTurn(): number {
    const coordination = this.coordination();
    this.#setCoordination({
      ...coordination,
      userTurns: coordination.userTurns + 1,
      lastTurn: { commander: null, compaction: null },
    });
    return coordination.userTurns;
  }

  /** Records the commander's decision or the compact stage's numbers for the latest user message. */
  recordTurn(part: Partial<LastTurnRecord>): void {
    const coordination = this.coordination();
    const lastTurn = coordination.lastTurn ?? { commander: null, compaction: null };
    this.#setCoordination({ ...coordination, lastTurn: { ...lastTurn, ...part } });
  }

  /** The oldest history message compiled into model inputs after a compression (`null`: all). */
  historyFrom(): string | null {
    return this.#session()?.historyFromMessageId ?? null;
  }

  /** Moves the history cut (compact stage); needs an existing session. */
  setHistoryFrom(messageId: string): void {
    const session = this.#session();
    if (session === null) return;
    this.#sb.setExtension(COMPRESSION_KEYS.session, { ...session, historyFromMessageId: messageId });
  }

  /** All records: the snapshot's plus this patch's. */
  #records(): CompressionRecords {
    return { ...ORIGINAL_RECORDS.get(this.#sb), ...this.#pendingRecords() };
  }

  /** Records this patch writes (the delta so far), empty before any write. */
  #pendingRecords(): CompressionRecords {
    const value = this.#sb.getExtension<CompressionRecords>(COMPRESSION_KEYS.records) ?? {};
    return value === ORIGINAL_RECORDS.get(this.#sb) ? {} : value;
  }

  #session(): CompressionSession | null {
    return this.#sb.getExtension<CompressionSession | null>(COMPRESSION_KEYS.session) ?? null;
  }

  #setCoordination(value: CoordinationState): void {
    this.#sb.setExtension(COMPRESSION_KEYS.coordination, value);
  }

  #assertThread(stored: string, requested: string): void {
    if (stored === requested) return;
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `this Blackboard holds ${stored}; refusing compression state of ${requested}`,
      path: 'threadId',
    });
  }
}

function splitBoth(state: CompressionState) {
  const scratch: CompressionRecords = {};
  return {
    requirements: splitRequirements(state.requirements, scratch),
    artifacts: splitArtifacts(state.artifacts, scratch),
  };
}

function sameJson(left: unknown, right: unknown): boolean {
  return JSON.stringify(left) === JSON.stringify(right);
}
