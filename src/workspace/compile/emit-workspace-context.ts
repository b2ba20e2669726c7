import {
  type AiSdkMessage,
  type AiSdkSystemMessage,
  type AnthropicRequest,
  type CompiledContext,
  type CompileReport,
  type Message,
  type OpenAIChatMessage,
  type ToolDefinition,
  toAiSdk,
  toAnthropic,
  toAnthropicRequest,
  toOpenAI,
  toOpenAIRequest,
} from '../../core/index.ts';

/** The targets {@link emitWorkspaceContext} renders for. */
export type EmitFormat = 'ai-sdk' | 'openai' | 'anthropic' | 'json';

/** Stage 5 output: the seed's `{ systemPrompt, messages }` plus the report and every target format. */
export interface EmittedContext {
  /** The system prompt as resolved from the prompt files (layer `system`). */
  systemPrompt: string;
  /** The ordered messages (system, context layers, history, query), each with `metadata.layer`. */
  messages: Message[];
  report: CompileReport;
  /** `generateText({ model, ...aiSdk })` for AI SDK 7. */
  aiSdk: { instructions: AiSdkSystemMessage[]; messages: AiSdkMessage[] };
  /** OpenAI Chat Completions `messages`. */
  openai: { messages: OpenAIChatMessage[] };
  /** Anthropic Messages `system` + `messages`, with cache breakpoints after stable layers. */
  anthropic: AnthropicRequest;
}

/**
 * Stage 5 of the workspace compiler (seed 003 "Emit"): the core compile result in every
 * target format. Pure.
 */
export function emitWorkspaceContext(compiled: CompiledContext): EmittedContext {
  return {
    systemPrompt: compiled.systemPrompt ?? '',
    messages: compiled.messages,
    report: compiled.report,
    aiSdk: toAiSdk(compiled.messages),
    openai: toOpenAI(compiled.messages),
    anthropic: toAnthropic(compiled.messages),
  };
}

/** What {@link selectEmitFormat} adds to a provider's request body. */
export interface RequestBodyTarget {
  /** The provider's model id. */
  model: string;
  /** The tools the call offers. Default none. */
  tools?: readonly ToolDefinition[];
}

/**
 * The value printed for one format: `openai` and `anthropic` are the whole request body the
 * call sends (model, messages, tools, the output limit — the report's `outputReserve`) when a
 * `target` is given, else their messages; `ai-sdk` the `instructions` and `messages` for
 * `generateText`; `json` everything.
 */
export function selectEmitFormat(
  emitted: EmittedContext,
  format: EmitFormat,
  target?: RequestBodyTarget,
): unknown {
  const body =
    target === undefined
      ? undefined
      : {
          model: target.model,
          maxOutputTokens: emitted.report.outputReserve,
          ...(target.tools === undefined ? {} : { tools: target.tools }),
        };
  switch (format) {
    case 'ai-sdk':
      return emitted.aiSdk;
    case 'openai':
      return body === undefined ? emitted.openai : toOpenAIRequest(emitted.messages, body);
    case 'anthropic':
      return body === undefined ? emitted.anthropic : toAnthropicRequest(emitted.messages, body);
    case 'json':
      return { systemPrompt: emitted.systemPrompt, messages: emitted.messages, report: emitted.report };
  }
}
