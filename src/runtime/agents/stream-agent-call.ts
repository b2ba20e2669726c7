import type { CallbackManager, CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import type { Serialized } from '@langchain/core/load/serializable';
import { AIMessage, AIMessageChunk } from '@langchain/core/messages';
import { type ChatGeneration, ChatGenerationChunk } from '@langchain/core/outputs';
import { getCallbackManagerForConfig } from '@langchain/core/runnables';
import { getConfig } from '@langchain/langgraph';
import { type LanguageModel, type ModelMessage, streamText } from 'ai';
import { type AnyModelMessage, fromModelMessages } from '../../ai-sdk/from-model-messages.ts';
import type { Message } from '../../core/message.ts';
import { toLangChain } from '../../langchain/index.ts';

/** The AI SDK `streamText` options of one agent call (its tool loop included). */
export type AgentCallRequest = Parameters<typeof streamText>[0];

/** Input of {@link streamAgentCall}. */
export interface StreamAgentCallInput {
  request: AgentCallRequest;
  /**
   * Prefix of the ids of the call's messages: the n-th response message (every step's assistant
   * message, then its tool results) is `<prefix>:<n>`. Each step's token chunks carry its
   * assistant message's id, so LangGraph's `messages` stream mode recognises the stored message
   * as the one it streamed and does not send it a second time.
   */
  idPrefix: string;
  /** Name of each step's model run in LangChain callbacks (the agent's id). */
  name: string;
  /**
   * Whether the steps' tokens reach LangGraph's `messages` stream. Default true. A call whose
   * answer is no message of the conversation (a plan, a reflection, a map-reduce worker's
   * result) passes false: its runs carry LangGraph's `nostream` tag.
   */
  stream?: boolean;
}

/** What one agent call produced. */
export interface StreamedAgentCall {
  /** Every step's messages (assistant text and tool calls, tool results), with their ids. */
  messages: Message[];
  /** The last step's text. */
  text: string;
  /** The validated structured output, when the request has `output`. */
  output?: unknown;
}

/**
 * Runs one agent call with the AI SDK's `streamText` (tool loop, `prepareStep`, structured
 * output as given) and reports each step to the LangChain callbacks of the graph run it runs
 * in, as a LangChain chat model reports its calls: a chat-model run per step
 * (`handleChatModelStart`), each text delta and tool call as an `AIMessageChunk`
 * (`handleLLMNewToken`), the step's message at its end (`handleLLMEnd`). That is the path by
 * which LangGraph's `messages` stream mode (and tracers) receive tokens. Outside a graph run
 * there are no callbacks and nothing is reported. A provider error or an abort throws, as
 * `generateText` would.
 */
export async function streamAgentCall(input: StreamAgentCallInput): Promise<StreamedAgentCall> {
  const { request } = input;
  const callbacks = await callbacksOfRun(input.stream ?? true);
  // The prompt of each step, in step order (tracers show it as the run's input).
  const prompts: ModelMessage[][] = [];
  const prepareStep: AgentCallRequest['prepareStep'] = async (options) => {
    const prepared = await request.prepareStep?.(options);
    if (callbacks !== undefined) {
      const instructions = prepared?.instructions ?? options.instructions;
      prompts.push([...systemMessages(instructions), ...(prepared?.messages ?? options.messages)]);
    }
    return prepared;
  };
  let failure: unknown;
  const result = streamText({
    ...request,
    prepareStep,
    // The error is thrown below, typed by the caller; not the SDK's `console.error`.
    onError: ({ error }) => {
      failure ??= error;
    },
  });
  // The response messages before this step: the step's assistant message is the next one.
  let responded = 0;
  let id = '';
  let answered = false;
  let resulted = false;
  let run: CallbackManagerForLLMRun | undefined;
  let text = '';
  let calls: { id: string; name: string; args: Record<string, unknown> }[] = [];
  for await (const part of result.stream) {
    switch (part.type) {
      case 'start-step': {
        id = `${input.idPrefix}:${responded}`;
        answered = false;
        resulted = false;
        text = '';
        calls = [];
        const prompt = prompts.shift() ?? [];
        run = (
          await callbacks?.handleChatModelStart(
            serializedModel(request.model),
            [toLangChain(fromModelMessages(prompt as AnyModelMessage[]).messages)],
            undefined,
            undefined,
            undefined,
            undefined,
            undefined,
            input.name,
          )
        )?.[0];
        break;
      }
      case 'text-delta':
        if (part.text === '') break;
        answered = true;
        text += part.text;
        await run?.handleLLMNewToken(
          part.text,
          { prompt: 0, completion: 0 },
          undefined,
          undefined,
          undefined,
          {
            chunk: new ChatGenerationChunk({
              text: part.text,
              message: new AIMessageChunk({ id, content: part.text }),
            }),
          },
        );
        break;
      case 'reasoning-delta':
      case 'file':
      case 'reasoning-file':
        answered = true;
        break;
      case 'tool-result':
      case 'tool-error':
        // The SDK's own tool results (not a provider's) are the step's tool message.
        if (part.providerExecuted !== true) resulted = true;
        break;
      case 'tool-call': {
        answered = true;
        const args = isRecord(part.input) ? part.input : {};
        calls.push({ id: part.toolCallId, name: part.toolName, args });
        await run?.handleLLMNewToken(
          '',
          { prompt: 0, completion: calls.length - 1 },
          undefined,
          undefined,
          undefined,
          {
            chunk: new ChatGenerationChunk({
              text: '',
              message: new AIMessageChunk({
                id,
                content: '',
                tool_call_chunks: [
                  {
                    type: 'tool_call_chunk',
                    id: part.toolCallId,
                    name: part.toolName,
                    args: JSON.stringify(args),
                    index: calls.length - 1,
                  },
                ],
              }),
            }),
          },
        );
        break;
      }
      case 'finish-step': {
        // The AI SDK's response messages: an assistant message when the step said anything,
        // then a tool message when it ran tools.
        responded += (answered ? 1 : 0) + (resulted ? 1 : 0);
        const message = new AIMessage({
          id,
          content: text,
          tool_calls: calls.map((call) => ({ ...call, type: 'tool_call' as const })),
        });
        const generation: ChatGeneration = { text, message };
        await run?.handleLLMEnd({
          generations: [[generation]],
          llmOutput: {
            tokenUsage: {
              promptTokens: part.usage.inputTokens,
              completionTokens: part.usage.outputTokens,
              totalTokens: part.usage.totalTokens,
            },
          },
        });
        run = undefined;
        break;
      }
      case 'error':
        failure ??= part.error;
        await run?.handleLLMError(failure);
        throw failure;
      case 'abort': {
        const reason =
          request.abortSignal?.reason ?? new DOMException('This operation was aborted', 'AbortError');
        await run?.handleLLMError(reason);
        throw reason;
      }
    }
  }
  if (failure !== undefined) throw failure;
  const messages = withIds(await result.responseMessages, input.idPrefix);
  return {
    messages,
    text: await result.text,
    ...(request.output === undefined ? {} : { output: await result.output }),
  };
}

/** The callbacks of the graph run this code runs in (none outside a run, or when none listen). */
async function callbacksOfRun(stream: boolean): Promise<CallbackManager | undefined> {
  const config = getConfig();
  if (config === undefined) return undefined;
  const manager = await getCallbackManagerForConfig(
    stream ? config : { ...config, tags: [...(config.tags ?? []), 'nostream'] },
  );
  return manager !== undefined && manager.handlers.length > 0 ? manager : undefined;
}

/**
 * The response messages as ctxloom messages (the parts ctxloom keeps; an answer of text only
 * as its text), with the ids their steps' chunks carried.
 */
function withIds(responseMessages: readonly ModelMessage[], prefix: string): Message[] {
  const { messages } = fromModelMessages(responseMessages as AnyModelMessage[]);
  return messages.map((message, index) => ({
    id: `${prefix}:${index}`,
    role: message.role,
    content:
      typeof message.content !== 'string' && message.content.every((part) => part.type === 'text')
        ? message.content.map((part) => (part.type === 'text' ? part.text : '')).join('')
        : message.content,
  }));
}

function systemMessages(instructions: unknown): ModelMessage[] {
  if (instructions === undefined || instructions === null) return [];
  if (typeof instructions === 'string') return [{ role: 'system', content: instructions }];
  return (Array.isArray(instructions) ? instructions : [instructions]) as ModelMessage[];
}

/** How a LangChain tracer names the model of a run (the AI SDK model is no LangChain object). */
function serializedModel(model: LanguageModel): Serialized {
  const id =
    typeof model === 'string'
      ? model
      : `${(model as { provider?: string }).provider ?? 'ai-sdk'}:${(model as { modelId?: string }).modelId ?? ''}`;
  return { lc: 1, type: 'not_implemented', id: ['ctxloom', 'ai-sdk', id] };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
