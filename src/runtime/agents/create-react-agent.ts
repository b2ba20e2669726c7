import type { BaseMessage } from '@langchain/core/messages';
import { MessagesAnnotation, StateGraph } from '@langchain/langgraph';
import { isStepCount, type LanguageModel, type ToolSet } from 'ai';
import { type CtxloomHookOptions, hookStore } from '../../ai-sdk/compile-model-call.ts';
import { ctxloomPrepareStep } from '../../ai-sdk/ctxloom-prepare-step.ts';
import { openArtifactTool } from '../../ai-sdk/open-artifact-tool.ts';
import { type Message, toAiSdk } from '../../core/index.ts';
import { fromLangChain, toLangChain } from '../../langchain/index.ts';
import { newLocalId } from '../../state/index.ts';
import { streamAgentCall } from './stream-agent-call.ts';

/** Options of {@link createReactAgent}: the model, its tools and how to compile each call. */
export interface CreateReactAgentOptions extends CtxloomHookOptions {
  /** An AI SDK language model. */
  model: LanguageModel;
  tools?: ToolSet;
  systemPrompt?: string;
  /** Most model calls per invocation (AI SDK `stopWhen`). Default 8. */
  maxSteps?: number;
}

/**
 * A LangGraph.js ReAct agent in the style of `createReactAgent`: one node over
 * `MessagesAnnotation` that runs the tool loop with the AI SDK's `streamText` — each step's
 * tokens reach `graph.stream(…, { streamMode: 'messages' })` as they arrive — and compiles
 * **every** model call through ctxloom (`ctxloomPrepareStep`: history and tool results under the window,
 * tool schemas counted, the reserve as `maxOutputTokens`). The tool outputs it keeps out of
 * the prompt can be re-opened with its `open_artifact` tool. Returns the uncompiled graph;
 * call `.compile({ checkpointer })`.
 * @example
 * const graph = createReactAgent({ model, tools, counter: getTokenCounter('gpt-4o'), window: 128_000 }).compile();
 * const { messages } = await graph.invoke({ messages: [new HumanMessage('Review f1.md')] });
 */
export function createReactAgent(options: CreateReactAgentOptions) {
  const { model, tools = {}, systemPrompt, maxSteps = 8, onCompile, ...compileOptions } = options;
  const store = hookStore(options);
  const allTools: ToolSet = { ...tools, open_artifact: openArtifactTool(store) };
  const prepareStep = ctxloomPrepareStep({
    ...compileOptions,
    store,
    tools: allTools,
    ...(onCompile === undefined ? {} : { onCompile }),
  });
  const agentNode = async (state: typeof MessagesAnnotation.State) => {
    const history: Message[] = fromLangChain(state.messages as BaseMessage[]);
    const { instructions, messages } = toAiSdk(history, { cacheControl: false });
    const result = await streamAgentCall({
      request: {
        model,
        ...(systemPrompt === undefined ? {} : { instructions: systemPrompt }),
        messages: [
          ...instructions.map((entry) => ({ role: 'system' as const, content: entry.content })),
          ...messages,
        ] as never,
        tools: allTools,
        prepareStep,
        stopWhen: isStepCount(maxSteps),
      },
      idPrefix: `react:${newLocalId()}`,
      name: 'agent',
    });
    return { messages: toLangChain(result.messages) };
  };
  return new StateGraph(MessagesAnnotation)
    .addNode('agent', agentNode)
    .addEdge('__start__', 'agent')
    .addEdge('agent', '__end__');
}
