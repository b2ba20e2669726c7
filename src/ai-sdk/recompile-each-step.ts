import type { ModelMessage, SystemModelMessage } from 'ai';
import { type CompiledContext, type Message, toAiSdk } from '../core/index.ts';
import { type AnyModelMessage, fromModelMessages } from './from-model-messages.ts';

/** What one compiled step sends: the `prepareStep` result, and `generateText`'s first-call options. */
export interface CompiledStepCall {
  instructions: SystemModelMessage[];
  messages: ModelMessage[];
  maxOutputTokens: number;
}

/** A compiled call as the AI SDK sends it, with the output reserve as the output limit. */
export function toStepCall(compiled: CompiledContext): CompiledStepCall {
  const { instructions, messages } = toAiSdk(compiled.messages);
  return {
    instructions: instructions as SystemModelMessage[],
    messages: messages as ModelMessage[],
    maxOutputTokens: compiled.maxOutputTokens,
  };
}

/**
 * The `prepareStep` of a tool loop whose first call was compiled before the loop started
 * (the session engine's turns, runtime agent nodes): every later step is compiled again by
 * `compileStep` from the loop's messages so far (tool calls and results, with stable ids),
 * so each model call is sent exactly as its own report says.
 * @example
 * prepareStep: recompileEachStep((steps) => compile({ ...request, steps })),
 */
export function recompileEachStep(
  compileStep: (steps: Message[], stepNumber: number) => Promise<CompiledContext>,
) {
  return async ({
    stepNumber,
    responseMessages,
  }: {
    stepNumber: number;
    responseMessages: readonly unknown[];
  }): Promise<CompiledStepCall | undefined> => {
    if (stepNumber === 0) return undefined;
    const { messages } = fromModelMessages(responseMessages as AnyModelMessage[]);
    return toStepCall(await compileStep(messages, stepNumber));
  };
}
