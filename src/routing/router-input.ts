import type { CitableMessage, RequirementTodoState } from '../compression/index.ts';
import type { RouterActionType } from './router-schema.ts';

/** An agent the router may pick: its responsibility (scope) and the actions it allows. */
export interface AgentDescriptor {
  id: string;
  /** One or two sentences: what this agent is responsible for, and what not. */
  scope: string;
  /** Subset of the whitelist this agent accepts. */
  allowedActions: readonly RouterActionType[];
  /** Extra terms for the offline lexical router (table names, synonyms, Chinese terms). */
  keywords?: readonly string[];
}

/** A request waiting for an answer (seed 004 §4.1), e.g. an agent asking the user a question. */
export interface PendingRequest {
  id: string;
  kind: 'human' | 'agent' | 'tool';
  status: 'pending' | 'answered' | 'cancelled';
  /** The agent that asked. */
  createdBy: string;
  /** The agent to resume with the answer; default `createdBy`. */
  resumeTo?: string;
  question: string;
}

/** Pending requests and recent results (`coordination_snapshot`). */
export interface CoordinationSnapshot {
  pendingRequests: readonly PendingRequest[];
  /** Short summaries of answered requests, newest last. */
  requestResults: readonly { requestId: string; summary: string }[];
}

/** An agent's work to review: who just answered the user's message, and which run of the turn it was. */
export interface RouterReview {
  agentId: string;
  /** Agents run since the user's message, 1-based. */
  hop: number;
}

/**
 * Everything the router sees (seed 004 §7): agents, a state summary, the coordination
 * snapshot, the bounded global and scoped TODO views, the artifact index view, and the user
 * message. Views, never raw state: no audit trails, no SQL.
 */
export interface RouterInput {
  agents: readonly AgentDescriptor[];
  /** Current phase and which artifacts exist or are missing. */
  stateSummary: string;
  coordination: CoordinationSnapshot;
  globalTodoView: string;
  /** Scoped TODO view per agent id. */
  scopedTodoViews: Readonly<Record<string, string>>;
  artifactIndexView: string;
  userMessage: CitableMessage;
  /**
   * Set when the commander reviews an agent's work on this message (after the agent ran):
   * the agent that just answered and how many agents ran since the message (1-based).
   */
  review?: RouterReview;
  /**
   * The TODO snapshots themselves, for local routers (the offline one deduplicates against
   * them); model routers send only the views.
   */
  todos?: RequirementTodoState;
}
