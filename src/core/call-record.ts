import type { CompiledContext } from './compile-types.ts';
import { hashText } from './fingerprint.ts';
import type { Message } from './message.ts';
import type { CompileReport } from './report.ts';

/** One model call as a call log keeps it: its report and what was sent, fingerprinted. */
export interface CallRecord {
  /** Unique id of the call. */
  id: string;
  /** Id of the user message that started the turn (`preview` calls are not logged). */
  turnId: string;
  /** 0 for the first model call of the turn, then one per tool-loop step. */
  step: number;
  /** ISO-8601 time of the compile. */
  at: string;
  /** The model the call went to, e.g. `offline`, `openai:gpt-4o-mini`, or an agent's model id. */
  model: string;
  /** The compile report: exactly what was sent, per layer, with every cut. */
  report: CompileReport;
  /** `role:fingerprint` of every message sent, in order. */
  messageFingerprints: string[];
  /** The agent that made the call, in a multi-agent process. */
  agentId?: string;
  /** On a router's call: what the commander decided with its output (the notebook's call report shows it). */
  decision?: CallDecision;
}

/**
 * What the commander of a multi-agent process (seed 004 §4) decided with a router call's
 * output: where control went and what became of each proposed action.
 */
export interface CallDecision {
  /** `routed`, `resume`, `clarification` (the output was not accepted) or `command`. */
  outcome: string;
  /** True when the commander judged an agent's work after it ran, not a new user message. */
  review: boolean;
  /** Where control went: `agent`, `clarify`, `compress`, `rework` or `gate`. */
  next: string;
  /** The agent that runs next, or `null` when the turn ends. */
  target: string | null;
  /** Why no agent runs (`low-confidence`, `invalid-action`, `router-asked`, …), else `null`. */
  reason: string | null;
  /** The router's confidence (0..1), when its output was accepted. */
  confidence: number | null;
  /** A rework: which agent redoes which artifact, and why. */
  rework?: { agentId: string; artifactId: string; reason: string };
  /** A gate verdict against requirement ids. */
  gate?: { verdict: 'pass' | 'fail'; requirementIds: string[]; reason: string };
  /**
   * Each proposed action: `applied`, `queued`, `no-op`, `rejected` (with the typed error's
   * `code` and `path` when a reference was unknown) or `rolled-back` (valid, but the decision
   * was refused as a whole).
   */
  actions: { type: string; status: string; message: string; code?: string; path?: string }[];
}

/** `role:hash` of each message sent, so two calls can be diffed without storing their text twice. */
export function fingerprintMessages(messages: readonly Message[]): string[] {
  return messages.map((message) => `${message.role}:${hashText(JSON.stringify(message.content))}`);
}

/** The call-log record of one compiled call. */
export function toCallRecord(input: {
  compiled: Pick<CompiledContext, 'report' | 'messages'>;
  id: string;
  turnId: string;
  step: number;
  at: Date;
  model: string;
  agentId?: string;
}): CallRecord {
  return {
    id: input.id,
    turnId: input.turnId,
    step: input.step,
    at: input.at.toISOString(),
    model: input.model,
    report: input.compiled.report,
    messageFingerprints: fingerprintMessages(input.compiled.messages),
    ...(input.agentId === undefined ? {} : { agentId: input.agentId }),
  };
}
