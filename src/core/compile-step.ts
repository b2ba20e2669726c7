import { type ArtifactHandleStore, createInMemoryArtifactStore } from './artifact-handles.ts';
import type { ContextBlock } from './block.ts';
import { compileContext } from './compile.ts';
import type { CompiledContext, CompileOptions, CompileRequest } from './compile-types.ts';
import { createHistoryCutStore, type HistoryCutStore } from './history-cut.ts';
import type { Message } from './message.ts';
import type { CompileReport } from './report.ts';
import type { ContextSource } from './source.ts';

/** Input of {@link createStepCompiler}. */
export interface StepCompilerInput {
  /** The turn's request: system prompt, contexts, history and query (steps are added per call). */
  request: CompileRequest;
  /** How to compile; `tools` should list the tools the loop offers (they count in the budget). */
  options: CompileOptions;
  /**
   * Where tool outputs kept out of the prompt go (re-open them with `open_artifact`).
   * Default: `options.toolResults.store`, else a new in-memory store.
   */
  store?: ArtifactHandleStore;
  /**
   * Run the sources once per turn (default true): later steps reuse their blocks, so a warm
   * recompile after a tool result costs no retrieval. False runs them before every step.
   */
  collectOnce?: boolean;
  /**
   * Where the history starts (decision 040, stateless callers). Default `options.historyCut`,
   * else a store of this compiler's own: the first history message sent never moves back
   * within the turn. Pass one store to every turn's compiler to keep it across turns; `false`
   * for decision 021's chunked cut per call.
   */
  historyCut?: HistoryCutStore | false;
}

/** Compiles each model call of one turn's tool loop (see {@link createStepCompiler}). */
export interface StepCompiler {
  /**
   * Compiles the call that follows `steps` (the tool loop's messages after the query so far,
   * oldest first; empty for the first call). Each call returns its own report; send
   * `maxOutputTokens` as the model's output limit.
   */
  compile(steps?: readonly Message[]): Promise<CompiledContext>;
  /** The store behind the artifact placeholders. */
  readonly store: ArtifactHandleStore;
  /** One report per compiled call, in order. */
  readonly reports: readonly CompileReport[];
}

/**
 * A compiler for every model call of a tool loop: the turn's base request plus the messages
 * the loop has produced so far, compiled through core under the same budget. Tool calls and
 * results join the history as blocks after the query (a call and its results are one group);
 * oversized or earlier-turn tool outputs become placeholders naming an artifact handle; the
 * tool definitions count in the budget; the output reserve comes back as `maxOutputTokens`.
 * Pass a cached counter (`withTokenCache`) so a recompile tokenises only the new messages.
 * @example
 * const steps = createStepCompiler({ request: { systemPrompt, history, query }, options: { counter, window: 16_000, tools } });
 * let compiled = await steps.compile([]);            // call 1
 * compiled = await steps.compile([callMsg, result]); // call 2, after one tool result
 */
export function createStepCompiler(input: StepCompilerInput): StepCompiler {
  const store = input.store ?? input.options.toolResults?.store ?? createInMemoryArtifactStore();
  const reports: CompileReport[] = [];
  const sources =
    input.collectOnce === false ? input.options.sources : input.options.sources?.map(collectOnce);
  const { historyCut: optionsCut, ...rest } = input.options;
  const historyCut =
    input.historyCut === false ? undefined : (input.historyCut ?? optionsCut ?? createHistoryCutStore());
  const options: CompileOptions = {
    ...rest,
    ...(sources === undefined ? {} : { sources }),
    toolResults: { ...input.options.toolResults, store },
    ...(historyCut === undefined ? {} : { historyCut }),
  };
  // A frozen copy of the history: it cannot change between steps, so each compile reuses
  // its preparation (placeholders, measures, tool groups) and handles only the new steps.
  const request: CompileRequest = {
    ...input.request,
    history: Object.freeze([...(input.request.history ?? [])]),
  };
  return {
    store,
    reports,
    async compile(steps = []) {
      const compiled = await compileContext({ ...request, steps }, options);
      reports.push(compiled.report);
      return compiled;
    },
  };
}

/**
 * A source that collects on its first call and returns the same blocks afterwards: the
 * sources of one turn's tool loop (same query) run once, not at every step.
 */
export function collectOnce(source: ContextSource): ContextSource {
  let blocks: Promise<ContextBlock[]> | undefined;
  return {
    ...source,
    collect(request, budget) {
      blocks ??= Promise.resolve(source.collect(request, budget));
      return blocks;
    },
  };
}
