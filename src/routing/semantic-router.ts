import { generateText, type LanguageModel, NoObjectGeneratedError, Output } from 'ai';
import { compilePromptCall } from '../ai-sdk/compile-prompt-call.ts';
import { toStepCall } from '../ai-sdk/recompile-each-step.ts';
import { type CompiledContext, CtxloomError, type TokenCounter } from '../core/index.ts';
import { createO200kCounter } from '../tokenizers/index.ts';
import type { RouterInput } from './router-input.ts';
import { formatRouterPrompt, ROUTER_INSTRUCTIONS } from './router-prompt.ts';
import { RouterDecisionSchema } from './router-schema.ts';

/**
 * A router's raw answer: a value still to be validated (even a schema-valid one may name an
 * unknown agent or a forbidden action), or unreadable output.
 */
export type SemanticRouterResult =
  | { ok: true; raw: unknown; source: string }
  | { ok: false; reason: 'malformed-output'; message: string; source: string };

/**
 * Suggests which agent the user is addressing and which whitelisted actions to take. It never
 * changes state; {@link routeUserMessage} validates and the commander applies.
 */
export interface SemanticRouter {
  /** Shown in outcomes: `model:<provider>/<id>` or `offline-lexical`. */
  readonly name: string;
  route(input: RouterInput, options?: RouteOptions): Promise<SemanticRouterResult>;
}

/** Options of {@link SemanticRouter.route}. */
export interface RouteOptions {
  signal?: AbortSignal;
  /**
   * Receives the compile of the router's model call (its report is what is sent) before it
   * is sent, so the caller can log it. A router that calls no model never calls it.
   */
  onCall?: (compiled: CompiledContext) => void | Promise<void>;
}

/** Options of {@link createModelRouter}. */
export interface ModelRouterOptions {
  model: LanguageModel;
  /** Replaces {@link ROUTER_INSTRUCTIONS}. */
  instructions?: string;
  /** Retries on transport errors. Default 2. */
  maxRetries?: number;
  /** Counts the request; default the o200k tokenizer. */
  counter?: TokenCounter;
  /** The model's context window. Default 128,000. */
  window?: number;
}

/** Output tokens a routing decision may use (and the call reserves). */
export const ROUTER_MAX_OUTPUT_TOKENS = 2000;

/**
 * A router backed by a model through the AI SDK's structured output (`Output.object` with the
 * strict decision schema). Output that fails the schema is parsed once more as plain JSON, so
 * an unknown agent or action is reported as such rather than as "malformed".
 */
export function createModelRouter(options: ModelRouterOptions): SemanticRouter {
  const model = options.model;
  const name = typeof model === 'string' ? `model:${model}` : `model:${model.provider}/${model.modelId}`;
  const counter = options.counter ?? createO200kCounter();
  return {
    name,
    async route(input, routeOptions) {
      // Compiled by core like every call: a report of exactly what is sent, logged before sending.
      const compiled = await compilePromptCall({
        instructions: options.instructions ?? ROUTER_INSTRUCTIONS,
        prompt: formatRouterPrompt(input),
        id: 'router-request',
        counter,
        ...(options.window === undefined ? {} : { window: options.window }),
        maxOutputTokens: ROUTER_MAX_OUTPUT_TOKENS,
        what: "the router's request",
      });
      await routeOptions?.onCall?.(compiled);
      const call = toStepCall(compiled);
      try {
        const result = await generateText({
          model,
          instructions: call.instructions,
          messages: call.messages,
          maxOutputTokens: call.maxOutputTokens,
          output: Output.object({ schema: RouterDecisionSchema, name: 'router_decision' }),
          maxRetries: options.maxRetries ?? 2,
          ...(routeOptions?.signal === undefined ? {} : { abortSignal: routeOptions.signal }),
        });
        return { ok: true, raw: result.output, source: name };
      } catch (error) {
        if (!NoObjectGeneratedError.isInstance(error)) {
          throw new CtxloomError({ code: 'model-error', message: 'router call failed', cause: error });
        }
        try {
          return { ok: true, raw: JSON.parse(error.text ?? ''), source: name };
        } catch {
          return { ok: false, reason: 'malformed-output', message: error.message, source: name };
        }
      }
    },
  };
}
