import type { AgentDescriptor } from './router-input.ts';
import { ROUTER_ACTION_TYPES, type RouterDecision, RouterDecisionSchema } from './router-schema.ts';

/** Why a router output was not accepted; each leads to a clarification request. */
export type RouterRejectionReason =
  | 'malformed-output'
  | 'unknown-agent'
  | 'action-not-allowed'
  | 'low-confidence';

/** Result of {@link validateRouterDecision}. */
export type RouterValidation =
  | { ok: true; decision: RouterDecision }
  | { ok: false; reason: RouterRejectionReason; message: string };

/**
 * Checks a router output against the whitelist (seed 004 §7): the target must be one of
 * `agents`, every action type must be in that agent's `allowedActions`, the whole value must
 * match the strict schema, and `confidence` must reach `threshold`. Checks run in that order,
 * so the reason names the first problem. Pure.
 */
export function validateRouterDecision(
  raw: unknown,
  options: { agents: readonly AgentDescriptor[]; threshold: number },
): RouterValidation {
  if (raw === null || typeof raw !== 'object') return malformed('output is not an object');
  const { targetAgent, confidence, actions } = raw as Record<string, unknown>;
  if (typeof targetAgent !== 'string') return malformed('targetAgent is not a string');
  if (typeof confidence !== 'number' || !Number.isFinite(confidence))
    return malformed('confidence is not a number');
  if (!Array.isArray(actions)) return malformed('actions is not an array');
  const agent = options.agents.find((candidate) => candidate.id === targetAgent);
  if (agent === undefined) {
    return {
      ok: false,
      reason: 'unknown-agent',
      message: `agent "${targetAgent}" is not one of the listed agents`,
    };
  }
  for (const action of actions) {
    const type = (action as { type?: unknown } | null)?.type;
    const allowed = typeof type === 'string' && (ROUTER_ACTION_TYPES as readonly string[]).includes(type);
    if (!allowed || !agent.allowedActions.includes(type as (typeof ROUTER_ACTION_TYPES)[number])) {
      return {
        ok: false,
        reason: 'action-not-allowed',
        message: `action "${String(type)}" is not allowed for ${agent.id}`,
      };
    }
  }
  const parsed = RouterDecisionSchema.safeParse(raw);
  if (!parsed.success)
    return malformed(
      parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '),
    );
  if (parsed.data.confidence < options.threshold) {
    return {
      ok: false,
      reason: 'low-confidence',
      message: `confidence ${parsed.data.confidence} is below the threshold ${options.threshold}`,
    };
  }
  return { ok: true, decision: parsed.data };
}

function malformed(message: string): RouterValidation {
  return { ok: false, reason: 'malformed-output', message };
}
