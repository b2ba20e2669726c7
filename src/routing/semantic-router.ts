import { generateText, type LanguageModel, NoObjectGeneratedError, Output } from 'ai';
import { CtxloomError } from '../core/index.ts';
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
  route(input: RouterInput, options?: { signal?: AbortSignal }): Promise<SemanticRouterResult>;
}

/** Options of {@link createModelRouter}. */
export interface ModelRouterOptions {
  model: LanguageModel;
  /** Replaces {@link ROUTER_INSTRUCTIONS}. */
  instructions?: string;
  /** Retries on transport errors. Default 2. */
  maxRetries?: number;
}

/**
 * A router backed by a model through the AI SDK's structured output (`Output.object` with the
 * strict decision schema). Output that fails the schema is parsed once more as plain JSON, so
 * an unknown agent or action is reported as such rather than as "malformed".
 */
export function createModelRouter(options: ModelRouterOptions): SemanticRouter {
  const model = options.model;
  const name = typeof model === 'string' ? `model:${model}` : `model:${model.provider}/${model.modelId}`;
  return {
    name,
    async route(input, routeOptions) {
      try {
        const result = await generateText({
          model,
          instructions: options.instructions ?? ROUTER_INSTRUCTIONS,
          prompt: formatRouterPrompt(input),
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
