import { compileContext } from './compile.ts';
import type { CompiledContext, CompileOptions, CompileRequest } from './compile-types.ts';
import { type CachedTokenCounter, withTokenCache } from './tokens.ts';

/** A compile pipeline with its options bound (seed 001's ContextOrchestrator). */
export interface Orchestrator {
  readonly options: CompileOptions;
  /** The cached counter shared by every build, so recompiles count only what changed. */
  readonly counter: CachedTokenCounter;
  build(request: CompileRequest): Promise<CompiledContext>;
}

/**
 * Binds compile options once. The counter is wrapped in a content-hash cache (unless it
 * already is one), so a recompile after one new message tokenises only that message.
 * @example
 * const orchestrator = createOrchestrator({ counter: getTokenCounter('gpt-4o'), window: 128_000, sources });
 * const { messages, report } = await orchestrator.build({ systemPrompt, history, query });
 */
export function createOrchestrator(options: CompileOptions): Orchestrator {
  const counter = isCached(options.counter) ? options.counter : withTokenCache(options.counter);
  const bound: CompileOptions = { ...options, counter };
  return {
    options: bound,
    counter,
    build: (request) => compileContext(request, bound),
  };
}

function isCached(counter: CompileOptions['counter']): counter is CachedTokenCounter {
  return 'stats' in counter && typeof (counter as Partial<CachedTokenCounter>).stats === 'function';
}
