import type {
  ArtifactStoreState,
  CompressionState,
  CompressScope,
  OpenQuestion,
  RequirementTodoSnapshot,
} from '../compression/index.ts';
import { CtxloomError, type CtxloomErrorCode } from '../core/index.ts';

/** What the commander did with one action. */
export interface CommanderActionReport {
  actionIndex: number;
  type: string;
  /**
   * `applied`; `queued` (low-confidence global delta → open question); `no-op` (already
   * applied); `rejected` (failed validation; `message` says why); `rolled-back` (valid, but
   * undone because another action of the same decision was rejected — all or nothing).
   */
  status: 'applied' | 'queued' | 'no-op' | 'rejected' | 'rolled-back';
  message: string;
  /**
   * For a `rejected` action refused by `validateDecisionReferences`: the typed error's
   * code and the offending field (`actions.1.artifactId`).
   */
  error?: { code: CtxloomErrorCode; path: string };
}

/**
 * Where control goes next: an agent; back to the user with a question; the compression step
 * (after `/compress`); an agent redoing an artifact (`rework`, the reason is its task); or a
 * gate verdict — `pass` ends the turn, `fail` sends the work back to `agentId` (the
 * decision's target agent) with the failed requirement ids as its task.
 */
export type CommanderNext =
  | { type: 'agent'; agentId: string }
  | { type: 'clarify'; question: string; reason: string }
  | { type: 'compress'; scope: CompressScope }
  | { type: 'rework'; agentId: string; artifactId: string; reason: string }
  | {
      type: 'gate';
      verdict: 'pass' | 'fail';
      requirementIds: string[];
      reason: string;
      /** The agent the work goes back to on `fail`; `null` on `pass`. */
      agentId: string | null;
    };

/**
 * The single write the commander returns for one user message, shaped like a StateBuilder
 * patch (one patch per node, seed 002): replacement values for the channels it changes and
 * an append list for open questions. Nothing is written until {@link applyCommanderPatch}
 * (or the Blackboard's StateBuilder adapter) applies it.
 */
export interface CommanderPatch {
  type: 'commander-patch';
  threadId: string;
  /** Revision of the {@link CompressionState} the patch was computed from. */
  baseRevision: number;
  next: CommanderNext;
  /** Replacement global TODO, when it changed. */
  globalTodo?: RequirementTodoSnapshot;
  /** Replacement scoped TODOs by agent id, for the agents whose TODO changed. */
  scopedTodos?: Record<string, RequirementTodoSnapshot>;
  /** Open questions to append. */
  openQuestions?: OpenQuestion[];
  /** Replacement artifact state, when an artifact was invalidated. */
  artifacts?: ArtifactStoreState;
  /** Set by `/compress`: clip every later payload of this session. */
  forceContextClipping?: { scope: CompressScope };
  /** Pending human requests this message answered. */
  resolvedRequestIds?: string[];
  actions: CommanderActionReport[];
}

/** True when the patch changes stored state (as opposed to only routing or asking). */
export function patchChangesState(patch: CommanderPatch): boolean {
  return (
    patch.globalTodo !== undefined ||
    patch.scopedTodos !== undefined ||
    (patch.openQuestions?.length ?? 0) > 0 ||
    patch.artifacts !== undefined ||
    patch.forceContextClipping !== undefined
  );
}

/**
 * Applies a commander patch to a session's compression state (the reference reducer, until
 * the StateBuilder module takes it over). Throws `invalid-argument` for another thread's patch
 * and `conflict` when the state moved on since the patch was computed. Pure.
 */
export function applyCommanderPatch(state: CompressionState, patch: CommanderPatch): CompressionState {
  if (patch.threadId !== state.threadId) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `patch for ${patch.threadId} applied to ${state.threadId}`,
      path: 'threadId',
    });
  }
  if (patch.baseRevision !== state.revision) {
    throw new CtxloomError({
      code: 'conflict',
      message: `patch computed at revision ${patch.baseRevision}, state is at ${state.revision}`,
      path: state.threadId,
    });
  }
  return {
    ...state,
    requirements: {
      global: patch.globalTodo ?? state.requirements.global,
      scoped: { ...state.requirements.scoped, ...patch.scopedTodos },
      openQuestions: [...state.requirements.openQuestions, ...(patch.openQuestions ?? [])],
    },
    artifacts: patch.artifacts ?? state.artifacts,
    forceContextClipping: patch.forceContextClipping === undefined ? state.forceContextClipping : true,
    clippingScope: patch.forceContextClipping?.scope ?? state.clippingScope,
  };
}
