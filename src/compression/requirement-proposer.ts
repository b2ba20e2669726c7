import { generateText, type LanguageModel, NoObjectGeneratedError, Output } from 'ai';
import { compilePromptCall } from '../ai-sdk/compile-prompt-call.ts';
import { toStepCall } from '../ai-sdk/recompile-each-step.ts';
import { type CompiledContext, CtxloomError, type TokenCounter } from '../core/index.ts';
import { createO200kCounter } from '../tokenizers/index.ts';
import { type RequirementProposal, RequirementProposalSchema } from './requirement-proposal-schema.ts';
import type { RequirementTodoSnapshot } from './requirement-schema.ts';
import type { CitableMessage } from './validate-requirement-delta.ts';

/** What a proposer is given: the bounded TODO view (never the audit trail) and the message. */
export interface RequirementProposerInput {
  /** {@link buildRequirementTodoView} text of the snapshot being updated. */
  view: string;
  /** The snapshot itself, for local proposers; model proposers send only `view`. */
  snapshot: RequirementTodoSnapshot;
  message: CitableMessage;
  signal?: AbortSignal;
  /**
   * Receives the compile of the proposer's model call (its report is what is sent) before it
   * is sent, so the caller can log it. Proposers that call no model never call it.
   */
  onCall?: (compiled: CompiledContext) => void | Promise<void>;
}

/** A proposal, or why none could be read from the model's output (data, not an error). */
export type RequirementProposerResult =
  | { ok: true; proposal: RequirementProposal }
  | { ok: false; reason: 'malformed-output'; message: string; text?: string };

/** Proposes requirement ops for one user message: a model, or the offline heuristic. */
export type RequirementProposer = ((
  input: RequirementProposerInput,
) => Promise<RequirementProposerResult>) & {
  /** Shown in results: `model:<provider>/<id>`, `offline-heuristic`, … */
  readonly label?: string;
};

/** The instructions sent with every model proposal. */
export const REQUIREMENT_INSTRUCTIONS = `You maintain a structured TODO of the user's requirements for a data (ETL) task.
Given the current TODO and the user's newest message, output only the changes this message makes:
- add: a new requirement (type input|output|rule|acceptance|constraint|preference|question; priority must|should|could).
- update: change text/type/priority/status of an existing id (null for fields that stay).
- cancel: the user withdraws an existing id.
- reset: the user starts over; every requirement is cancelled.
Every op carries "quote": a verbatim substring of the user's newest message (copy characters exactly, do not translate or paraphrase).
Use only ids present in the TODO. Output {"ops": []} when the message states no requirement.`;

/** Options of {@link createModelRequirementProposer}. */
export interface ModelRequirementProposerOptions {
  /** Any AI SDK language model (a provider model, or `MockLanguageModelV4` in tests). */
  model: LanguageModel;
  /** Replaces {@link REQUIREMENT_INSTRUCTIONS}. */
  instructions?: string;
  /** Retries of the AI SDK call on transport errors. Default 2. */
  maxRetries?: number;
  /** Counts the request; default the o200k tokenizer. */
  counter?: TokenCounter;
  /** The model's context window. Default 128,000. */
  window?: number;
}

/** Output tokens a requirement proposal may use (and the call reserves). */
export const PROPOSAL_MAX_OUTPUT_TOKENS = 2000;

/**
 * A proposer backed by a model through the AI SDK's structured output (`generateText` with
 * `Output.object` and the zod proposal schema). Output that does not parse or match the schema
 * becomes `{ ok: false, reason: 'malformed-output' }`; transport failures throw `model-error`.
 */
export function createModelRequirementProposer(
  options: ModelRequirementProposerOptions,
): RequirementProposer {
  const model = options.model;
  const label = typeof model === 'string' ? `model:${model}` : `model:${model.provider}/${model.modelId}`;
  const counter = options.counter ?? createO200kCounter();
  const propose = async ({
    view,
    message,
    signal,
    onCall,
  }: RequirementProposerInput): Promise<RequirementProposerResult> => {
    // Compiled by core like every call: a report of exactly what is sent, logged before sending.
    const compiled = await compilePromptCall({
      instructions: options.instructions ?? REQUIREMENT_INSTRUCTIONS,
      prompt: `Current TODO:\n${view || '(empty)'}\n\nUser's newest message (turn ${message.turnIndex}):\n${message.text}`,
      id: 'proposal-request',
      counter,
      ...(options.window === undefined ? {} : { window: options.window }),
      maxOutputTokens: PROPOSAL_MAX_OUTPUT_TOKENS,
      what: "the requirement proposal's request",
    });
    await onCall?.(compiled);
    const call = toStepCall(compiled);
    try {
      const result = await generateText({
        model: options.model,
        instructions: call.instructions,
        messages: call.messages,
        maxOutputTokens: call.maxOutputTokens,
        output: Output.object({ schema: RequirementProposalSchema, name: 'requirement_todo_delta' }),
        maxRetries: options.maxRetries ?? 2,
        ...(signal === undefined ? {} : { abortSignal: signal }),
      });
      return { ok: true, proposal: result.output };
    } catch (error) {
      if (NoObjectGeneratedError.isInstance(error)) {
        return {
          ok: false,
          reason: 'malformed-output',
          message: error.message,
          ...(error.text === undefined ? {} : { text: error.text }),
        };
      }
      throw new CtxloomError({
        code: 'model-error',
        message: 'requirement proposal call failed',
        cause: error,
      });
    }
  };
  return Object.assign(propose, { label });
}
