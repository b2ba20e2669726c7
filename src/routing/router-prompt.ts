import type { RouterInput } from './router-input.ts';

/** Instructions sent with every model routing call. */
export const ROUTER_INSTRUCTIONS = `You are the semantic router of a multi-agent data (ETL) assistant.
Decide which listed agent the user's newest message is addressed to, and propose only whitelisted actions allowed for that agent.
- targetAgent: one of the listed agent ids, nothing else.
- confidence: 0..1, how sure you are about targetAgent. Be honest; low confidence leads to a clarification question, which is fine.
- actions:
  - update_scoped_todo: requirement ops for that agent's own TODO (local constraints, preferences).
  - propose_global_delta: requirement ops that change what every agent must respect (inputs, outputs, metric definitions, acceptance), with its own confidence.
  - request_clarification: a question for the user when the message is ambiguous.
  - invalidate_artifact: an artifact id from the index that the message makes obsolete, with a reason.
  - rework {agentId, artifactId, reason}: a listed agent redoes an artifact from the index; it runs next with the reason as its task.
  - gate {verdict: pass|fail, requirementIds, reason}: whether the work meets the named requirement ids (from the TODOs); a fail goes back to targetAgent.
Requirement ops: add {type, priority, text, quote}, update {id, text|null, type|null, priority|null, status|null, quote}, cancel {id, quote}, reset {quote}.
Every quote must be copied verbatim from the user's newest message. Use only ids shown in the TODOs or artifact index.
Output JSON only.`;

/** Renders a {@link RouterInput} as the prompt text (views only; no raw state). */
export function formatRouterPrompt(input: RouterInput): string {
  const agents = input.agents
    .map(
      (agent) =>
        `- ${agent.id}: ${agent.scope} (allowed actions: ${agent.allowedActions.join(', ') || 'none'})`,
    )
    .join('\n');
  const pending = input.coordination.pendingRequests
    .filter((request) => request.status === 'pending')
    .map((request) => `- ${request.id} (${request.kind}, by ${request.createdBy}): ${request.question}`)
    .join('\n');
  const results = input.coordination.requestResults
    .map((result) => `- ${result.requestId}: ${result.summary}`)
    .join('\n');
  const scoped = Object.entries(input.scopedTodoViews)
    .filter(([, view]) => view.length > 0)
    .map(([, view]) => view)
    .join('\n\n');
  return [
    `# Agents\n${agents}`,
    `# State\n${input.stateSummary || '(none)'}`,
    `# Pending requests\n${pending || '(none)'}`,
    `# Request results\n${results || '(none)'}`,
    `# Global TODO\n${input.globalTodoView || '(empty)'}`,
    `# Scoped TODOs\n${scoped || '(empty)'}`,
    `# Artifact index\n${input.artifactIndexView || '(empty)'}`,
    ...(input.review === undefined
      ? []
      : [
          `# Review (hop ${input.review.hop})\n${input.review.agentId} has just answered the message below. Judge its work: a gate (pass or fail, with requirement ids), or a rework of an artifact. Without a rework or a failed gate the turn ends.`,
        ]),
    `# User's newest message (turn ${input.userMessage.turnIndex}, id ${input.userMessage.id})\n${input.userMessage.text}`,
  ].join('\n\n');
}
