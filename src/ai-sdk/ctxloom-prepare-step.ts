import {
  asSchema,
  type ModelMessage,
  type PrepareStepFunction,
  type SystemModelMessage,
  type ToolSet,
} from 'ai';
import { OPEN_ARTIFACT_TOOL } from '../core/artifact-handles.ts';
import { type ArtifactHandleStore, type Message, type ToolDefinition, toAiSdk } from '../core/index.ts';
import {
  type CtxloomHookOptions,
  compileModelCall,
  hookHistoryCut,
  hookStore,
} from './compile-model-call.ts';
import { createConversationCuts } from './conversation-cuts.ts';
import { type AnyModelMessage, fromModelMessages } from './from-model-messages.ts';
import { openArtifactTool } from './open-artifact-tool.ts';

/** Options of {@link ctxloomPrepareStep}: the compile options plus the tools the call offers. */
export interface CtxloomPrepareStepOptions<TOOLS extends ToolSet = ToolSet> extends CtxloomHookOptions {
  /** Your tools; `prepareStep.tools` adds `open_artifact` to them, and all their schemas count. */
  tools?: TOOLS;
}

/** A `prepareStep` with what to pass beside it. */
export interface CtxloomPrepareStep<TOOLS extends ToolSet = ToolSet> {
  /** Where the tool outputs kept out of the prompt go (`tools.open_artifact` reads it). */
  readonly store: ArtifactHandleStore;
  /**
   * The tools to pass to `generateText`/`streamText` with it: yours plus `open_artifact`
   * (bound to `store`) unless you have one — exactly the tools every step counts.
   */
  readonly tools: TOOLS & ToolSet;
}

/**
 * A `prepareStep` for `generateText`/`streamText`/`ToolLoopAgent` that compiles every step
 * through ctxloom: the initial instructions and messages plus the loop's response messages
 * so far are compiled under the budget (the schemas of `prepareStep.tools` counted), and the
 * step gets the compiled `instructions`, `messages` and the output reserve as
 * `maxOutputTokens`. Pass `prepareStep.tools` as the call's tools: they are yours plus the
 * `open_artifact` tool the placeholders name, and what the budget counts. Each conversation's
 * history start is stored (`historyCut`), so it only moves forward across steps and turns.
 * @example
 * const prepareStep = ctxloomPrepareStep({ counter, window: 128_000, tools });
 * await generateText({ model, tools: prepareStep.tools, prepareStep, stopWhen: stepCountIs(8), messages });
 */
export function ctxloomPrepareStep<TOOLS extends ToolSet = ToolSet>(
  options: CtxloomPrepareStepOptions<TOOLS>,
): PrepareStepFunction<TOOLS> & CtxloomPrepareStep<TOOLS> {
  const store = hookStore(options);
  const { tools: own, ...hookOptions } = options;
  const toolSet = {
    ...own,
    ...(own?.[OPEN_ARTIFACT_TOOL] === undefined ? { [OPEN_ARTIFACT_TOOL]: openArtifactTool(store) } : {}),
  } as TOOLS & ToolSet;
  let definitions: Promise<ToolDefinition[]> | undefined;
  const cuts = createConversationCuts(
    options.maxConversations === undefined ? {} : { maxConversations: options.maxConversations },
  );
  const prepare = async ({
    initialInstructions,
    initialMessages,
    responseMessages,
  }: {
    initialInstructions: string | SystemModelMessage | SystemModelMessage[] | undefined;
    initialMessages: ModelMessage[];
    responseMessages: ModelMessage[];
  }) => {
    definitions ??= toolDefinitions(toolSet);
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
      historyCut: hookHistoryCut(options, cuts, messages),
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
  return Object.assign(prepare as unknown as PrepareStepFunction<TOOLS>, { store, tools: toolSet });
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
