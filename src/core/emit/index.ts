export { type AiSdkMessage, type AiSdkSystemMessage, type ToAiSdkOptions, toAiSdk } from './ai-sdk.ts';
export {
  type AnthropicBlock,
  type AnthropicRequest,
  type ToAnthropicOptions,
  toAnthropic,
} from './anthropic.ts';
export { cacheBreakpoints, MAX_CACHE_BREAKPOINTS } from './breakpoints.ts';
export { type OpenAIChatMessage, type OpenAIUserContent, toOpenAI } from './openai.ts';
export { contextAsUserText, layerNames, splitInstructions } from './stable.ts';
export {
  type AnthropicMessagesRequest,
  type OpenAIChatRequest,
  type RequestBodyOptions,
  toAnthropicRequest,
  toOpenAIRequest,
} from './to-request-body.ts';
