import { requirementItemId } from './create-requirement-todo-snapshot.ts';
import {
  type EvidenceAnchor,
  type RequirementItem,
  type RequirementOp,
  type RequirementTodoDelta,
  RequirementTodoDeltaSchema,
  type RequirementTodoSnapshot,
} from './requirement-schema.ts';

/** A message an evidence anchor may cite: its id, its turn, and its text. */
export interface CitableMessage {
  id: string;
  turnIndex: number;
  text: string;
}

/**
 * Why an op (or the whole delta, `opIndex: null`) was rejected. `malformed-output`: the model's
 * answer did not parse or match the proposal schema; `malformed-delta`: a delta failed its schema.
 */
export type RequirementRejectionReason =
  | 'malformed-output'
  | 'malformed-delta'
  | 'wrong-thread'
  | 'wrong-scope'
  | 'stale-revision'
  | 'unknown-id'
  | 'id-reused'
  | 'id-not-next'
  | 'already-cancelled'
  | 'empty-change'
  | 'text-too-long'
  | 'unknown-message'
  | 'turn-mismatch'
  | 'quote-not-verbatim';

/** One rejection, with the op that caused it and a sentence for logs and the UI. */
export interface RequirementRejection {
  opIndex: number | null;
  reason: RequirementRejectionReason;
  message: string;
}

/** Options of {@link validateRequirementDelta}. */
export interface ValidateRequirementDeltaOptions {
  snapshot: RequirementTodoSnapshot;
  delta: unknown;
  /** The messages anchors may cite (usually the user messages of the session). */
  messages: readonly CitableMessage[];
  /** Longest requirement text accepted, in characters. Default 500, range ≥ 1. */
  maxTextChars?: number;
}

/** Result of {@link validateRequirementDelta}: the parsed delta, or every reason it fails. */
export type RequirementValidation =
  | { ok: true; delta: RequirementTodoDelta }
  | { ok: false; rejections: RequirementRejection[] };

/**
 * Checks a delta against a snapshot before anything changes: it must parse, target this
 * snapshot at its current revision, name existing ids for `update`/`cancel`, never reuse an
 * id for `add`, and every anchor must quote its cited message verbatim. Ops are checked in
 * order against the snapshot as earlier ops would leave it. Pure.
 */
export function validateRequirementDelta(options: ValidateRequirementDeltaOptions): RequirementValidation {
  const parsed = RequirementTodoDeltaSchema.safeParse(options.delta);
  if (!parsed.success) {
    const message = parsed.error.issues
      .map((issue) => `${issue.path.join('.')}: ${issue.message}`)
      .join('; ');
    return { ok: false, rejections: [{ opIndex: null, reason: 'malformed-delta', message }] };
  }
  const delta = parsed.data;
  const { snapshot } = options;
  const rejections: RequirementRejection[] = [];
  if (delta.threadId !== snapshot.threadId) {
    rejections.push({ opIndex: null, reason: 'wrong-thread', message: `delta is for ${delta.threadId}` });
  }
  if (delta.agentId !== snapshot.agentId) {
    rejections.push({ opIndex: null, reason: 'wrong-scope', message: `delta is for agent ${delta.agentId}` });
  }
  if (delta.baseRevision !== snapshot.revision) {
    rejections.push({
      opIndex: null,
      reason: 'stale-revision',
      message: `delta was computed at revision ${delta.baseRevision}, snapshot is at ${snapshot.revision}`,
    });
  }
  const maxTextChars = options.maxTextChars ?? 500;
  const messages = new Map(options.messages.map((message) => [message.id, message]));
  const statuses = new Map<string, RequirementItem['status']>(
    snapshot.items.map((item) => [item.id, item.status]),
  );
  const ids = { agentId: snapshot.agentId, next: snapshot.nextSequence };
  delta.ops.forEach((op, opIndex) => {
    for (const problem of [checkAnchor(op.evidence, messages), checkOp(op, statuses, ids, maxTextChars)]) {
      if (problem !== undefined) rejections.push({ opIndex, ...problem });
    }
  });
  return rejections.length === 0 ? { ok: true, delta } : { ok: false, rejections };
}

type Problem = { reason: RequirementRejectionReason; message: string } | undefined;

function checkOp(
  op: RequirementOp,
  statuses: Map<string, RequirementItem['status']>,
  ids: { agentId: string | null; next: number },
  maxTextChars: number,
): Problem {
  const tooLong = (text: string | undefined): Problem =>
    text !== undefined && text.length > maxTextChars
      ? { reason: 'text-too-long', message: `text exceeds ${maxTextChars} chars` }
      : undefined;
  switch (op.op) {
    case 'add': {
      if (statuses.has(op.id)) return { reason: 'id-reused', message: `id ${op.id} already exists` };
      // Ids come from the snapshot's only-growing sequence, so an id can never come back.
      const expected = requirementItemId(ids.agentId, ids.next);
      if (op.id !== expected)
        return { reason: 'id-not-next', message: `add must use id ${expected}, got ${op.id}` };
      ids.next++;
      statuses.set(op.id, 'open');
      return tooLong(op.text);
    }
    case 'update': {
      if (!statuses.has(op.id)) return { reason: 'unknown-id', message: `no requirement ${op.id}` };
      const { text, type, priority, status } = op.changes;
      if (text === undefined && type === undefined && priority === undefined && status === undefined) {
        return { reason: 'empty-change', message: `update of ${op.id} changes nothing` };
      }
      if (status !== undefined) statuses.set(op.id, status);
      return tooLong(text);
    }
    case 'cancel': {
      const status = statuses.get(op.id);
      if (status === undefined) return { reason: 'unknown-id', message: `no requirement ${op.id}` };
      if (status === 'cancelled')
        return { reason: 'already-cancelled', message: `${op.id} is already cancelled` };
      statuses.set(op.id, 'cancelled');
      return undefined;
    }
    case 'reset':
      for (const id of statuses.keys()) statuses.set(id, 'cancelled');
      return undefined;
  }
}

function checkAnchor(anchor: EvidenceAnchor, messages: Map<string, CitableMessage>): Problem {
  const cited = messages.get(anchor.messageId);
  if (cited === undefined) return { reason: 'unknown-message', message: `no message ${anchor.messageId}` };
  if (cited.turnIndex !== anchor.turnIndex) {
    return {
      reason: 'turn-mismatch',
      message: `message ${anchor.messageId} is turn ${cited.turnIndex}, anchor says ${anchor.turnIndex}`,
    };
  }
  if (anchor.quote.trim().length === 0 || !cited.text.includes(anchor.quote)) {
    return { reason: 'quote-not-verbatim', message: `quote is not in message ${anchor.messageId}` };
  }
  return undefined;
}
