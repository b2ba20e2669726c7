import {
  buildArtifactContextView,
  buildRequirementTodoView,
  type CitableMessage,
  type CompressionState,
} from '../compression/index.ts';
import type { TokenCounter } from '../core/index.ts';
import type { AgentDescriptor, CoordinationSnapshot, RouterInput, RouterReview } from './router-input.ts';

/** Options of {@link buildRouterInput}. */
export interface BuildRouterInputOptions {
  state: CompressionState;
  agents: readonly AgentDescriptor[];
  userMessage: CitableMessage;
  counter: TokenCounter;
  stateSummary?: string;
  coordination?: CoordinationSnapshot;
  /** Set when the commander reviews an agent's work (see `RouterInput.review`). */
  review?: RouterReview;
  /** Tokens of the global TODO view. Default 800. */
  globalTodoTokens?: number;
  /** Tokens of each scoped TODO view. Default 300. */
  scopedTodoTokens?: number;
  /** Tokens of the artifact index view. Default 600. */
  artifactTokens?: number;
}

/** Assembles a {@link RouterInput} from a session's compression state, with bounded views. */
export function buildRouterInput(options: BuildRouterInputOptions): RouterInput {
  const { state, counter } = options;
  const scopedTodoViews: Record<string, string> = {};
  for (const agent of options.agents) {
    const snapshot = state.requirements.scoped[agent.id];
    if (snapshot === undefined) continue;
    scopedTodoViews[agent.id] = buildRequirementTodoView(snapshot, {
      counter,
      maxTokens: options.scopedTodoTokens ?? 300,
    }).text;
  }
  return {
    agents: options.agents,
    stateSummary: options.stateSummary ?? '',
    coordination: options.coordination ?? { pendingRequests: [], requestResults: [] },
    globalTodoView: buildRequirementTodoView(state.requirements.global, {
      counter,
      maxTokens: options.globalTodoTokens ?? 800,
    }).text,
    scopedTodoViews,
    artifactIndexView: buildArtifactContextView(state.artifacts.index, {
      counter,
      maxTokens: options.artifactTokens ?? 600,
    }).text,
    userMessage: options.userMessage,
    ...(options.review === undefined ? {} : { review: options.review }),
    todos: state.requirements,
  };
}
