import { compileContext } from '../core/compile.ts';
import type { CompiledContext } from '../core/compile-types.ts';
import { CtxloomError } from '../core/errors.ts';
import type { TokenCounter } from '../core/tokens.ts';

/** Options of {@link compilePromptCall}. */
export interface CompilePromptCallOptions {
  /** The call's instructions (its system prompt). */
  instructions: string;
  /** The one user message the call sends. */
  prompt: string;
  /** Id of that message in the report. Default `prompt`. */
  id?: string;
  counter: TokenCounter;
  /** The model's context window. Default 128,000. */
  window?: number;
  /** Tokens reserved for the answer (sent as `maxOutputTokens`). Default a quarter of the window. */
  maxOutputTokens?: number;
  /** What the call is, for the error when it does not fit, e.g. `the router's request`. */
  what?: string;
}

/**
 * Compiles a single-prompt model call — a router decision, a requirement proposal, a summary —
 * through core, so it has a report (what is sent, under the window) like every chat or agent
 * call, and can be logged in a session's call log before it is sent. Nothing is cut: a prompt
 * that does not fit the window is an `over-budget` error, before anything is sent.
 */
export async function compilePromptCall(options: CompilePromptCallOptions): Promise<CompiledContext> {
  const window = options.window ?? 128_000;
  const compiled = await compileContext(
    {
      systemPrompt: options.instructions,
      query: { id: options.id ?? 'prompt', role: 'user', content: options.prompt },
    },
    {
      counter: options.counter,
      window,
      ...(options.maxOutputTokens === undefined
        ? {}
        : { outputReserveRatio: Math.min(0.9, options.maxOutputTokens / window) }),
    },
  );
  if (!compiled.report.fits) {
    throw new CtxloomError({
      code: 'over-budget',
      message: `${options.what ?? 'the request'} (${compiled.report.totalTokens} tokens) does not fit the model's ${window}-token window`,
      path: 'window',
    });
  }
  return compiled;
}
