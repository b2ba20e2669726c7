import {
  type ArtifactStoreState,
  assertRevision,
  type CompressionState,
  type CompressionStore,
  createArtifactStoreState,
  createCompressionState,
  createRequirementTodoState,
  type RequirementTodoState,
  type ThreadId,
} from '../../compression/index.ts';
import { CtxloomError } from '../../core/errors.ts';
import { applyCommanderPatch, type CommanderPatch, type PendingRequest } from '../../routing/index.ts';
import type { StateBuilder } from '../../state/index.ts';
import {
  COMPRESSION_KEYS,
  type CompressionSession,
  type CoordinationState,
} from './compression-blackboard.ts';

/** Contents each StateBuilder started from (read before any module wrote a delta into it). */
const ORIGINAL_CONTENTS = new WeakMap<StateBuilder, Record<string, string>>();

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
    if (!ORIGINAL_CONTENTS.has(sb)) {
      ORIGINAL_CONTENTS.set(
        sb,
        sb.getExtension<Record<string, string>>(COMPRESSION_KEYS.artifactContents) ?? {},
      );
    }
  }

  /** The session's compression state (this patch's pending writes included), or `undefined`. */
  snapshot(): CompressionState | undefined {
    const session = this.#session();
    if (session === null) return undefined;
    const threadId = session.threadId as ThreadId;
    return {
      version: 1,
      threadId,
      revision: session.revision,
      requirements:
        this.#sb.getExtension<RequirementTodoState | null>(COMPRESSION_KEYS.requirements) ??
        createRequirementTodoState({ threadId }),
      artifacts: this.#artifacts(threadId),
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
    if (current === undefined || !sameJson(current.requirements, next.requirements)) {
      this.#sb.setExtension(COMPRESSION_KEYS.requirements, next.requirements);
    }
    const { contents, ...index } = next.artifacts;
    if (
      current === undefined ||
      !sameJson({ ...current.artifacts, contents: {} }, { ...index, contents: {} })
    ) {
      this.#sb.setExtension(COMPRESSION_KEYS.artifacts, { ...index, contents: {} });
    }
    const known = current?.artifacts.contents ?? {};
    const added = Object.entries(contents).filter(([id]) => !(id in known));
    if (added.length > 0) {
      this.#sb.setExtension(COMPRESSION_KEYS.artifactContents, {
        ...this.#pendingContents(),
        ...Object.fromEntries(added),
      });
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
    this.#setCoordination({ ...coordination, userTurns: coordination.userTurns + 1 });
    return coordination.userTurns;
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

  #artifacts(threadId: ThreadId): ArtifactStoreState {
    const stored = this.#sb.getExtension<ArtifactStoreState | null>(COMPRESSION_KEYS.artifacts);
    const base = stored ?? createArtifactStoreState({ threadId });
    const contents = { ...ORIGINAL_CONTENTS.get(this.#sb), ...this.#pendingContents() };
    return { ...base, contents: { ...base.contents, ...contents } };
  }

  /** Content ids this patch adds (the delta written so far), empty before any write. */
  #pendingContents(): Record<string, string> {
    const value = this.#sb.getExtension<Record<string, string>>(COMPRESSION_KEYS.artifactContents) ?? {};
    return value === ORIGINAL_CONTENTS.get(this.#sb) ? {} : value;
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

function sameJson(left: unknown, right: unknown): boolean {
  return JSON.stringify(left) === JSON.stringify(right);
}
