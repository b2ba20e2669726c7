import {
  type AiSdkMessage,
  type AiSdkSystemMessage,
  type AnthropicRequest,
  type CompiledContext,
  type CompileReport,
  type Message,
  type OpenAIChatMessage,
  toAiSdk,
  toAnthropic,
  toOpenAI,
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

/** The value printed for one format: the target's request body, or everything as JSON. */
export function selectEmitFormat(emitted: EmittedContext, format: EmitFormat): unknown {
  switch (format) {
    case 'ai-sdk':
      return emitted.aiSdk;
    case 'openai':
      return emitted.openai;
    case 'anthropic':
      return emitted.anthropic;
    case 'json':
      return { systemPrompt: emitted.systemPrompt, messages: emitted.messages, report: emitted.report };
  }
}
