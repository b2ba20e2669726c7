import {
  type ArtifactHandleStore,
  type CompiledContext,
  type CompileOptions,
  type CompileRequest,
  compileContext,
  createInMemoryArtifactStore,
  type HistoryCutStore,
  type Message,
  type ToolDefinition,
} from '../core/index.ts';
import type { ConversationCuts } from './conversation-cuts.ts';

/** Options shared by the AI SDK hooks: how to compile each model call. */
export interface CtxloomHookOptions extends Omit<CompileOptions, 'tools' | 'historyCut'> {
  /**
   * Where each conversation's history starts (decision 040, stateless callers). Default: the
   * hook keeps one stored cut per conversation (see `createConversationCuts`), so the first
   * message sent only moves forward across steps and turns and the cached prefix holds. A
   * store: that one for every call (one conversation). `false`: decision 021's chunked cut,
   * recomputed per call (`historyChunkRatio`).
   */
  historyCut?: HistoryCutStore | false;
  /** Conversations the default per-conversation cuts remember (least recently used go first). Default 256. */
  maxConversations?: number;
  /** Extra request fields for every call: contexts, blocks, the persisted summary, metadata. */
  request?: Omit<CompileRequest, 'history' | 'query' | 'steps' | 'systemPrompt'>;
  /** Receives every call's compiled context (its own report, `maxOutputTokens`). */
  onCompile?: (compiled: CompiledContext) => void | Promise<void>;
  /**
   * Where tool outputs kept out of the prompt go; give the same store to `openArtifactTool`.
   * Default `toolResults.store`, else a new in-memory store.
   */
  store?: ArtifactHandleStore;
}

/**
 * The stored cut a hook's call uses: the caller's store, none (`false`), or the conversation's
 * own from `cuts` (the default).
 */
export function hookHistoryCut(
  options: CtxloomHookOptions,
  cuts: ConversationCuts,
  messages: readonly Message[],
): HistoryCutStore | undefined {
  if (options.historyCut === false) return undefined;
  return options.historyCut ?? cuts.forMessages(messages);
}

/** The store a hook uses (see {@link CtxloomHookOptions.store}). */
export function hookStore(options: CtxloomHookOptions): ArtifactHandleStore {
  return options.store ?? options.toolResults?.store ?? createInMemoryArtifactStore();
}

/**
 * Compiles one model call from the messages an AI SDK loop would send: system messages
 * become the system prompt, the last user message is the query, what precedes it the history
 * and what follows it (tool calls and results) the steps.
 */
export async function compileModelCall(input: {
  messages: readonly Message[];
  tools: readonly ToolDefinition[];
  options: CtxloomHookOptions;
  store: ArtifactHandleStore;
  /** The conversation's stored cut; none: the chunked cut. */
  historyCut?: HistoryCutStore | undefined;
}): Promise<CompiledContext> {
  const { options } = input;
  const system: string[] = [];
  const rest: Message[] = [];
  for (const message of input.messages) {
    if (message.role === 'system') system.push(typeof message.content === 'string' ? message.content : '');
    else rest.push(message);
  }
  let queryAt = -1;
  for (let index = rest.length - 1; index >= 0; index--) {
    if (rest[index]?.role === 'user') {
      queryAt = index;
      break;
    }
  }
  const {
    request: extra,
    onCompile,
    store: _store,
    historyCut: _historyCut,
    maxConversations: _maxConversations,
    ...compileOptions
  } = options;
  const request: CompileRequest = {
    ...extra,
    ...(system.length === 0 ? {} : { systemPrompt: system.join('\n\n') }),
    history: queryAt < 0 ? rest : rest.slice(0, queryAt),
    ...(queryAt < 0 ? {} : { query: rest[queryAt] as Message, steps: rest.slice(queryAt + 1) }),
  };
  const compiled = await compileContext(request, {
    ...compileOptions,
    tools: input.tools,
    toolResults: { ...options.toolResults, store: input.store },
    ...(input.historyCut === undefined ? {} : { historyCut: input.historyCut }),
  });
  await onCompile?.(compiled);
  return compiled;
}
