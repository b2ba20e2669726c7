import {
  asSchema,
  type ModelMessage,
  type PrepareStepFunction,
  type SystemModelMessage,
  type ToolSet,
} from 'ai';
import { type ArtifactHandleStore, type Message, type ToolDefinition, toAiSdk } from '../core/index.ts';
import { type CtxloomHookOptions, compileModelCall, hookStore } from './compile-model-call.ts';
import { type AnyModelMessage, fromModelMessages } from './from-model-messages.ts';

/** Options of {@link ctxloomPrepareStep}: the compile options plus the tools the call offers. */
export interface CtxloomPrepareStepOptions<TOOLS extends ToolSet = ToolSet> extends CtxloomHookOptions {
  /** The same tool set passed to `generateText`/`streamText`; their schemas count in the budget. */
  tools?: TOOLS;
}

/**
 * A `prepareStep` for `generateText`/`streamText`/`ToolLoopAgent` that compiles every step
 * through ctxloom: the initial instructions and messages plus the loop's response messages
 * so far are compiled under the budget (tool schemas counted), and the step gets the
 * compiled `instructions`, `messages` and the output reserve as `maxOutputTokens`.
 * @example
 * const prepareStep = ctxloomPrepareStep({ counter, window: 128_000, tools });
 * await generateText({ model, tools, prepareStep, stopWhen: stepCountIs(8), messages });
 */
export function ctxloomPrepareStep<TOOLS extends ToolSet = ToolSet>(
  options: CtxloomPrepareStepOptions<TOOLS>,
): PrepareStepFunction<TOOLS> & { readonly store: ArtifactHandleStore } {
  const store = hookStore(options);
  const { tools: toolSet, ...hookOptions } = options;
  let definitions: Promise<ToolDefinition[]> | undefined;
  const prepare = async ({
    initialInstructions,
    initialMessages,
    responseMessages,
  }: {
    initialInstructions: string | SystemModelMessage | SystemModelMessage[] | undefined;
    initialMessages: ModelMessage[];
    responseMessages: ModelMessage[];
  }) => {
    definitions ??= toolDefinitions(toolSet ?? {});
    const system = instructionMessages(initialInstructions);
    const { messages } = fromModelMessages([
      ...system,
      ...(initialMessages as AnyModelMessage[]),
      ...(responseMessages as AnyModelMessage[]),
    ]);
    const compiled = await compileModelCall({
      messages,
      tools: await definitions,
      options: hookOptions,
      store,
    });
    const emitted = toAiSdk(compiled.messages, {
      ...(options.layers === undefined ? {} : { layers: options.layers }),
    });
    return {
      instructions: emitted.instructions as SystemModelMessage[],
      messages: emitted.messages as ModelMessage[],
      maxOutputTokens: compiled.maxOutputTokens,
    };
  };
  return Object.assign(prepare as unknown as PrepareStepFunction<TOOLS>, { store });
}

function instructionMessages(
  instructions: string | SystemModelMessage | SystemModelMessage[] | undefined,
): AnyModelMessage[] {
  if (instructions === undefined) return [];
  const list =
    typeof instructions === 'string'
      ? [{ role: 'system' as const, content: instructions }]
      : [instructions].flat();
  return list.map((message) => ({ role: 'system', content: message.content }));
}

/** The JSON-schema definitions of an AI SDK tool set, as the SDK sends them. */
export async function toolDefinitions(tools: ToolSet): Promise<ToolDefinition[]> {
  const out: ToolDefinition[] = [];
  for (const [name, tool] of Object.entries(tools)) {
    const schema = await asSchema(tool.inputSchema).jsonSchema;
    const description = typeof tool.description === 'string' ? tool.description : undefined;
    out.push({ name, ...(description === undefined ? {} : { description }), inputSchema: schema });
  }
  return out;
}

export type { Message };
