import { type ContextBlock, type ContextSource, createBlock, type TokenCounter } from '../core/index.ts';
import { buildArtifactContextView } from './build-artifact-context-view.ts';
import { buildRequirementTodoView } from './build-requirement-todo-view.ts';
import type { CompressionState } from './compression-state.ts';

/** Options of {@link todoContextBlocks}. */
export interface TodoContextBlocksOptions {
  counter: TokenCounter;
  /** Tokens for all three views together. Range ≥ 0. */
  maxTokens: number;
  /** The agent being called; its scoped TODO is included. Omit for global only. */
  agentId?: string;
  /** Shares of `maxTokens` for global TODO, scoped TODO, artifacts. Default `[0.45, 0.2, 0.35]`. */
  shares?: readonly [number, number, number];
  /** Anchors per requirement in the views. Default 1. */
  maxEvidence?: number;
  /** Source name on the blocks. Default `compression`. */
  source?: string;
  /**
   * Newest tool results without an artifact shown in the artifact view (a chat session's
   * `/compress artifacts`), which then leaves out its empty sections. Default: none.
   */
  toolEvidence?: number;
}

/**
 * The session's compression views as `todo__context` blocks for the core pipeline: the global
 * requirement TODO (priority 0.95), the called agent's scoped TODO (0.9) and the artifact
 * index (0.7). Budget a view leaves unused passes on to the next one, so the three blocks
 * together never exceed `maxTokens`. Empty views produce no block. After `/compress`
 * (`forceContextClipping`), the compressed side renders compactly: requirements without
 * evidence lines (`requirement`, `all`), artifacts without evidence and per-agent history
 * (`artifacts`, `all`).
 */
export function todoContextBlocks(
  state: CompressionState,
  options: TodoContextBlocksOptions,
): ContextBlock[] {
  const [globalShare, scopedShare] = options.shares ?? [0.45, 0.2, 0.35];
  const source = options.source ?? 'compression';
  const { counter } = options;
  // After `/compress` the compressed side is rendered in its compact form for the rest of the
  // session: requirements without evidence lines, artifacts without the per-agent section.
  const scope = state.forceContextClipping ? state.clippingScope : null;
  const compactRequirements = scope === 'all' || scope === 'requirement';
  const compactArtifacts = scope === 'all' || scope === 'artifacts';
  const maxEvidence = compactRequirements ? 0 : (options.maxEvidence ?? 1);
  let remaining = options.maxTokens;
  const blocks: ContextBlock[] = [];
  const push = (
    id: string,
    text: string,
    tokens: number,
    priority: number,
    metadata: Record<string, unknown>,
  ) => {
    remaining -= tokens;
    if (text.length === 0) return;
    blocks.push(
      createBlock({ id, layer: 'todo__context', source, content: text, tokens, priority, metadata }, counter),
    );
  };
  const globalBudget = Math.floor(options.maxTokens * globalShare);
  const global = buildRequirementTodoView(state.requirements.global, {
    counter,
    maxEvidence,
    maxTokens: globalBudget,
  });
  // Empty views produce no block: a TODO with no requirement says nothing.
  if (state.requirements.global.items.length > 0) {
    push(`${state.threadId}:todo:global`, global.text, global.tokens, 0.95, {
      omittedIds: global.omittedIds,
    });
  }
  const scoped = options.agentId === undefined ? undefined : state.requirements.scoped[options.agentId];
  if (scoped !== undefined) {
    // Its own share plus whatever the global view left unused.
    const scopedBudget = Math.floor(options.maxTokens * scopedShare) + (globalBudget - global.tokens);
    const view = buildRequirementTodoView(scoped, {
      counter,
      maxEvidence,
      maxTokens: Math.min(remaining, scopedBudget),
    });
    push(`${state.threadId}:todo:${options.agentId}`, view.text, view.tokens, 0.9, {
      omittedIds: view.omittedIds,
    });
  }
  if (
    state.artifacts.index.artifacts.length > 0 ||
    (options.toolEvidence !== undefined &&
      options.toolEvidence > 0 &&
      state.artifacts.index.evidence.length > 0)
  ) {
    const view = buildArtifactContextView(state.artifacts.index, {
      counter,
      maxTokens: Math.max(0, remaining),
      ...(compactArtifacts ? { recentPerAgent: 0, maxEvidencePerJob: 0 } : {}),
      ...(options.toolEvidence === undefined
        ? {}
        : { toolEvidence: options.toolEvidence, omitEmptySections: true }),
    });
    push(`${state.threadId}:artifacts`, view.text, view.tokens, 0.7, { omittedIds: view.omittedIds });
  }
  return blocks;
}

/** Options of {@link createCompressionSource}. */
export interface CompressionSourceOptions
  extends Omit<TodoContextBlocksOptions, 'counter' | 'maxTokens' | 'agentId'> {
  /** Reads the session's current state (from a `CompressionStore`, or the agent state). */
  load: () => CompressionState | undefined | Promise<CompressionState | undefined>;
  /** Metadata key naming the called agent in `CollectRequest.metadata`. Default `agentId`. */
  agentKey?: string;
  /** Source priority for unused budget. Default 0.8. */
  priority?: number;
}

/**
 * A {@link ContextSource} for the core pipeline's gather stage: fills `todo__context` with
 * {@link todoContextBlocks} within the source's allocation, for the agent named in the
 * request metadata.
 * @example compileContext({ query, metadata: { agentId: 'tester' } }, { counter, window, sources: [createCompressionSource({ load })] })
 */
export function createCompressionSource(options: CompressionSourceOptions): ContextSource {
  const name = options.source ?? 'compression';
  return {
    name,
    layer: 'todo__context',
    priority: options.priority ?? 0.8,
    async collect(request, budget) {
      const state = await options.load();
      if (state === undefined) return [];
      const agentId = request.metadata?.[options.agentKey ?? 'agentId'];
      return todoContextBlocks(state, {
        ...options,
        source: name,
        counter: request.counter,
        maxTokens: budget.maxTokens,
        ...(typeof agentId === 'string' ? { agentId } : {}),
      });
    },
  };
}
