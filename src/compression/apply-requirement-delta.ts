import type {
  EvidenceAnchor,
  EvidenceRecord,
  RequirementItem,
  RequirementTodoDelta,
  RequirementTodoSnapshot,
} from './requirement-schema.ts';
import {
  type CitableMessage,
  type RequirementRejection,
  validateRequirementDelta,
} from './validate-requirement-delta.ts';

/** Options of {@link applyRequirementDelta}. */
export interface ApplyRequirementDeltaOptions {
  snapshot: RequirementTodoSnapshot;
  /** A delta, typically from {@link resolveRequirementProposal}; validated here first. */
  delta: unknown;
  /** The messages anchors may cite. */
  messages: readonly CitableMessage[];
  /** Longest requirement text accepted, in characters. Default 500. */
  maxTextChars?: number;
}

/**
 * What applying a delta did. `applied`: a new snapshot; `duplicate`: this delta id was
 * already applied, snapshot returned unchanged; `rejected`: validation failed, snapshot
 * returned unchanged with every reason.
 */
export type ApplyRequirementDeltaResult =
  | { status: 'applied'; snapshot: RequirementTodoSnapshot; rejections: [] }
  | { status: 'duplicate'; snapshot: RequirementTodoSnapshot; rejections: [] }
  | { status: 'rejected'; snapshot: RequirementTodoSnapshot; rejections: RequirementRejection[] };

/**
 * Validates and applies a delta, all or nothing: one invalid op rejects the whole delta and
 * the snapshot is returned as it was. Applying the same delta twice is a no-op. Pure; the
 * input snapshot is never mutated.
 */
export function applyRequirementDelta(options: ApplyRequirementDeltaOptions): ApplyRequirementDeltaResult {
  const { snapshot } = options;
  const deltaId = (options.delta as { id?: unknown } | null)?.id;
  if (typeof deltaId === 'string' && snapshot.appliedDeltaIds.includes(deltaId)) {
    return { status: 'duplicate', snapshot, rejections: [] };
  }
  const validation = validateRequirementDelta({
    snapshot,
    delta: options.delta,
    messages: options.messages,
    ...(options.maxTextChars === undefined ? {} : { maxTextChars: options.maxTextChars }),
  });
  if (!validation.ok) return { status: 'rejected', snapshot, rejections: validation.rejections };
  return { status: 'applied', snapshot: applyValidDelta(snapshot, validation.delta), rejections: [] };
}

function applyValidDelta(
  snapshot: RequirementTodoSnapshot,
  delta: RequirementTodoDelta,
): RequirementTodoSnapshot {
  const items = snapshot.items.map((item) => ({ ...item, evidence: [...item.evidence] }));
  const byId = new Map(items.map((item) => [item.id, item]));
  const history: EvidenceRecord[] = [];
  let nextSequence = snapshot.nextSequence;
  for (const op of delta.ops) {
    const record = (itemId: string | null, text?: string) =>
      history.push({
        deltaId: delta.id,
        op: op.op,
        itemId,
        evidence: op.evidence,
        ...(text === undefined ? {} : { text }),
      });
    switch (op.op) {
      case 'add': {
        const item: RequirementItem = {
          id: op.id,
          type: op.type,
          priority: op.priority,
          status: 'open',
          text: op.text,
          evidence: [op.evidence],
        };
        items.push(item);
        byId.set(item.id, item);
        nextSequence++;
        record(op.id, op.text);
        break;
      }
      case 'update': {
        const item = byId.get(op.id) as RequirementItem;
        if (op.changes.text !== undefined) item.text = op.changes.text;
        if (op.changes.type !== undefined) item.type = op.changes.type;
        if (op.changes.priority !== undefined) item.priority = op.changes.priority;
        if (op.changes.status !== undefined) item.status = op.changes.status;
        addEvidence(item, op.evidence);
        record(op.id, op.changes.text);
        break;
      }
      case 'cancel': {
        const item = byId.get(op.id) as RequirementItem;
        item.status = 'cancelled';
        addEvidence(item, op.evidence);
        record(op.id);
        break;
      }
      case 'reset':
        for (const item of items) item.status = 'cancelled';
        record(null);
        break;
    }
  }
  return {
    ...snapshot,
    revision: snapshot.revision + 1,
    nextSequence,
    items,
    appliedDeltaIds: [...snapshot.appliedDeltaIds, delta.id],
    evidenceHistory: [...snapshot.evidenceHistory, ...history],
  };
}

function addEvidence(item: RequirementItem, anchor: EvidenceAnchor): void {
  const seen = item.evidence.some(
    (existing) => existing.messageId === anchor.messageId && existing.quote === anchor.quote,
  );
  if (!seen) item.evidence.push(anchor);
}
