import { collectOnce } from '../../core/compile-step.ts';
import {
  type CompiledContext,
  type CompileOptions,
  type CompileRequest,
  type ContextSource,
  compileContext,
  createLayerRegistry,
  type Message,
  type Summarizer,
  type TokenCounter,
  type ToolDefinition,
  type ToolResultPolicy,
} from '../../core/index.ts';
import { getTokenCounter } from '../../tokenizers/index.ts';
import type { ContextConfig } from '../config/context-config-schema.ts';
import type { ResolvedReference } from '../references/resolve-reference.ts';
import type { Workspace } from '../workspace.ts';
import { type EmittedContext, emitWorkspaceContext } from './emit-workspace-context.ts';
import { formatHistory } from './format-history.ts';
import { type LoadedSession, loadSession } from './load-session.ts';
import { sessionLayers } from './session-layers.ts';

/** Options shared by {@link compileWorkspaceContext} and {@link compileLoadedSession}. */
export interface WorkspaceCompileOptions {
  /** Token counter; default `getTokenCounter(config.budget.model ?? 'gpt-4o')` (exact BPE, cached). */
  counter?: TokenCounter;
  /** Extra sources (retrieval, TODO views…) passed to the core pipeline. */
  sources?: readonly ContextSource[];
  /** Summariser for history that does not fit; default: the core omission notice. */
  summarizer?: Summarizer;
  /** The persisted `compression__context` summary and its coverage, when the session has one. */
  compression?: CompileRequest['compression'];
  /** Id of the query message; default `query-<history length + 1>-<hash of its text>`. */
  queryId?: string;
  /** The turn's tool-loop messages after the query so far (a later step of the turn). */
  steps?: readonly Message[];
  /** Tool definitions the call offers: counted in the budget and reported. */
  tools?: readonly ToolDefinition[];
  /** Keeps oversized and earlier-turn tool outputs behind artifact placeholders. */
  toolResults?: ToolResultPolicy;
  /**
   * Layers placed before the history in the cache-friendly order although they are volatile
   * in general (`createLayerRegistry`'s `stable`): a session's summary and TODO, which change
   * only when its cut moves or on `/compress` (decision 063). Default none.
   */
  stableLayers?: readonly string[];
}

/** Result of a workspace compile: the emitted context plus what the stages found. */
export interface WorkspaceContext extends EmittedContext {
  /** The core result (kept and dropped blocks, rendered layers). */
  compiled: CompiledContext;
  /** References merged into the query, with provenance. */
  references: ResolvedReference[];
  /** The user message as sent (store it to mark `once` injections delivered). */
  queryMessage: Message | undefined;
  /** Closest-match fallbacks and missing prompt files. */
  warnings: string[];
  config: ContextConfig;
  /** The tool definitions the call offers (counted in its report); empty when none. */
  tools: readonly ToolDefinition[];
}

/** Model whose tokenizer counts when neither a counter nor `budget.model` is given. */
export const DEFAULT_MODEL = 'gpt-4o';

/** Options of {@link compileWorkspaceContext}. */
export interface CompileWorkspaceContextOptions extends WorkspaceCompileOptions {
  workspace: Workspace;
  sessionId: string;
  /** The manifest; default the session's `context-config.json`. */
  config?: ContextConfig;
  /** Overrides the manifest's `query` (the message being sent now). */
  query?: string;
}

/**
 * Compiles the input of one model call for a workspace session from its
 * `context-config.json` (seed 003): load through the sandbox, then the five pure stages —
 * resolve sources, select blocks (profile and injections), merge references, format history
 * and query — through the core `compileContext` (budget, compaction, composition), and emit
 * for every target. Named apart from core's `compileContext`, which it feeds
 * (docs/decisions/005-workspace-compile-name.md).
 *
 * Internal (not exported from `ctxloom/workspace`, decision 047): it leaves out the session's
 * state — summary and cut, recall, requirement TODO, tools — so it is not the call any entry
 * point sends; the stage tests and the workspace bench use it. Users compile with the session
 * engine: `createSessionEngine({ workspace, store }).compile(sessionId)`.
 */
export async function compileWorkspaceContext(
  options: CompileWorkspaceContextOptions,
): Promise<WorkspaceContext> {
  const { workspace, sessionId } = options;
  const loaded = await loadSession({
    workspace,
    sessionId,
    ...(options.config === undefined ? {} : { config: options.config }),
    ...(options.query === undefined ? {} : { query: options.query }),
  });
  const counter = options.counter ?? getTokenCounter(loaded.config.budget.model ?? DEFAULT_MODEL);
  return compileLoadedSession(loaded, { ...options, counter });
}

/** The compile of {@link compileWorkspaceContext} over already loaded data (no I/O). */
export async function compileLoadedSession(
  loaded: LoadedSession,
  options: WorkspaceCompileOptions & { counter: TokenCounter },
): Promise<WorkspaceContext> {
  return prepareLoadedSession(loaded, options).compile(options.steps);
}

/** A loaded session prepared for every model call of one turn (see {@link prepareLoadedSession}). */
export interface PreparedWorkspaceCompile {
  /** Compiles one call: the first with no steps, later ones with the tool loop's messages so far. */
  compile(steps?: readonly Message[]): Promise<WorkspaceContext>;
}

/**
 * Runs the stages that do not depend on the tool loop once — the manifest's layers
 * (`sessionLayers`: prompts, profile blocks, injections, references, retrieval, budget,
 * composition) and the curated history (frozen, so core prepares it once for every step) —
 * and returns a compile per model call. Throws `invalid-reference` for bad
 * references, before anything is compiled.
 */
export function prepareLoadedSession(
  loaded: LoadedSession,
  options: Omit<WorkspaceCompileOptions, 'steps'> & { counter: TokenCounter },
): PreparedWorkspaceCompile {
  const { config } = loaded;
  const { counter } = options;
  // Prompts, profile blocks, injections, references and retrieval: the stages an agent of a
  // process session compiles too (decisions 053, 062).
  const layers = sessionLayers(loaded, {
    counter,
    ...(options.queryId === undefined ? {} : { queryId: options.queryId }),
  });
  // Frozen: core prepares a frozen history once and reuses it for every step of the turn.
  const history = Object.freeze(
    formatHistory({
      messages: loaded.messages,
      curation: loaded.curation,
      chatHistory: config.chatHistory,
    }),
  );
  const query = layers.query;
  const queryMessage: Message | undefined =
    query === undefined
      ? undefined
      : { id: query.id, role: 'user', content: query.content, metadata: query.metadata };
  const { budget, composition } = layers;
  const compileOptions: CompileOptions = {
    counter,
    window: budget.window,
    outputReserveRatio: budget.outputReserveRatio,
    enableShareContext: composition.enableShareContext,
    policy: { merge: composition.merge, order: composition.order },
    // `last-n` is core's history window: what it leaves out is reported, not sliced away here.
    ...(budget.maxHistoryMessages === undefined ? {} : { maxHistoryMessages: budget.maxHistoryMessages }),
    ...(budget.allocationRatios === undefined ? {} : { allocationRatios: budget.allocationRatios }),
    // Collected once per turn: every step of the tool loop has the same query.
    sources: [...layers.sources, ...(options.sources ?? [])].map(collectOnce),
    ...(options.summarizer === undefined ? {} : { summarizer: options.summarizer }),
    ...(options.tools === undefined ? {} : { tools: options.tools }),
    ...(options.toolResults === undefined ? {} : { toolResults: options.toolResults }),
    ...(options.stableLayers === undefined || options.stableLayers.length === 0
      ? {}
      : { layers: createLayerRegistry([], { stable: options.stableLayers }) }),
  };
  const request: CompileRequest = {
    ...(layers.systemPrompt === '' ? {} : { systemPrompt: layers.systemPrompt }),
    blocks: layers.blocks,
    history,
    ...(queryMessage === undefined ? {} : { query: queryMessage }),
    ...(options.compression === undefined ? {} : { compression: options.compression }),
    metadata: { sessionId: loaded.sessionId, workspace: true },
  };
  return {
    async compile(steps) {
      const compiled = await compileContext(
        steps === undefined ? request : { ...request, steps },
        compileOptions,
      );
      return {
        ...emitWorkspaceContext(compiled),
        systemPrompt: layers.systemPrompt,
        compiled,
        references: query?.references ?? [],
        queryMessage,
        warnings: layers.warnings,
        config,
        tools: options.tools ?? [],
      };
    },
  };
}
