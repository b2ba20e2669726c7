import {
  type ArtifactHandleStore,
  type CompiledContext,
  type CompileOptions,
  type CompileRequest,
  compileContext,
  createInMemoryArtifactStore,
  type Message,
  type ToolDefinition,
} from '../core/index.ts';

/** Options shared by the AI SDK hooks: how to compile each model call. */
export interface CtxloomHookOptions extends Omit<CompileOptions, 'tools'> {
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
  const { request: extra, onCompile, store: _store, ...compileOptions } = options;
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
  });
  await onCompile?.(compiled);
  return compiled;
}
