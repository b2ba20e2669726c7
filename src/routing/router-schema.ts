import { z } from 'zod';
import { ProposedRequirementOpSchema } from '../compression/index.ts';

/**
 * The whitelisted actions a router may propose and the commander may apply (seed 004 §8).
 * - `update_scoped_todo`: requirement ops for the target agent's scoped TODO.
 * - `propose_global_delta`: requirement ops for the global TODO, applied only at or above the
 *   global-delta threshold, else turned into an open question.
 * - `request_clarification`: ask the user a question instead of acting.
 * - `invalidate_artifact`: mark an artifact version (or a key's active version) invalid.
 * - `rework`: an agent redoes an artifact (its version is invalidated; the agent runs next with
 *   the reason as its task).
 * - `gate`: a pass/fail verdict against named requirement ids (a pass ends the turn; a fail
 *   sends the work back to the target agent).
 */
export const ROUTER_ACTION_TYPES = [
  'update_scoped_todo',
  'propose_global_delta',
  'request_clarification',
  'invalidate_artifact',
  'rework',
  'gate',
] as const;
/** One of {@link ROUTER_ACTION_TYPES}. */
export type RouterActionType = (typeof ROUTER_ACTION_TYPES)[number];

/**
 * One whitelisted action with its arguments, discriminated by `type`. Objects are strict: an
 * unknown field (say `target: 'planner'`) fails validation instead of being stripped, since a
 * silently dropped field would apply the action somewhere the model did not mean.
 */
export const RouterActionSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('update_scoped_todo'), ops: z.array(ProposedRequirementOpSchema) }),
  z.strictObject({
    type: z.literal('propose_global_delta'),
    ops: z.array(ProposedRequirementOpSchema),
    confidence: z.number().min(0).max(1).describe('How sure you are this is a change for every agent.'),
  }),
  z.strictObject({ type: z.literal('request_clarification'), question: z.string().min(1) }),
  z.strictObject({
    type: z.literal('invalidate_artifact'),
    artifactId: z.string().min(1),
    reason: z.string().min(1),
  }),
  z.strictObject({
    type: z.literal('rework'),
    agentId: z.string().min(1).describe('Id of the listed agent that redoes the artifact.'),
    artifactId: z.string().min(1).describe('Artifact id or key from the artifact index.'),
    reason: z.string().min(1).describe('What is wrong with it; becomes the agent’s task.'),
  }),
  z.strictObject({
    type: z.literal('gate'),
    verdict: z.enum(['pass', 'fail']),
    requirementIds: z
      .array(z.string().min(1))
      .min(1)
      .describe('Ids of the requirements (global or scoped TODO) the verdict is about.'),
    reason: z.string().min(1),
  }),
]);
/** A value of {@link RouterActionSchema}. */
export type RouterAction = z.infer<typeof RouterActionSchema>;

/**
 * The router's strict JSON output: which agent the user is talking to, how sure it is (0..1),
 * and whitelisted actions. A suggestion only; the commander decides what happens. Strict: no
 * field beyond these, at any level.
 */
export const RouterDecisionSchema = z.strictObject({
  targetAgent: z
    .string()
    .describe('Id of the agent the user is addressing; must be one of the listed agents.'),
  confidence: z.number().min(0).max(1),
  actions: z.array(RouterActionSchema),
});
/** A value of {@link RouterDecisionSchema}. */
export type RouterDecision = z.infer<typeof RouterDecisionSchema>;
