import type { LanguageModelMiddleware } from 'ai';
import type { ArtifactHandleStore } from '../core/index.ts';
import {
  type CtxloomHookOptions,
  compileModelCall,
  hookHistoryCut,
  hookStore,
} from './compile-model-call.ts';
import { createConversationCuts } from './conversation-cuts.ts';
import { callToolDefinitions } from './count-call-tokens.ts';
import { type AnyModelMessage, fromModelMessages } from './from-model-messages.ts';
import { toModelPrompt } from './to-model-prompt.ts';

/**
 * A language-model middleware that compiles every call through ctxloom: wrap a model once
 * and `generateText`, `streamText` and agents get a per-step compile — each call's prompt is
 * fitted to `window − reserve` (tool schemas counted), tool outputs that are too big or from
 * an earlier turn become artifact placeholders, prompt-cache breakpoints are set, and the
 * output reserve is sent as `maxOutputTokens` (a smaller limit of the caller is kept).
 * Each conversation's history start is stored (`historyCut`), so it only moves forward across
 * steps and turns and a provider's prompt cache keeps the prefix.
 * `store` holds the artifacts; pass it to `openArtifactTool` so the model can re-open them.
 * @example
 * const middleware = ctxloomMiddleware({ counter: getTokenCounter('gpt-4o'), window: 128_000 });
 * const model = wrapLanguageModel({ model: openai('gpt-4o'), middleware });
 * await generateText({ model, tools: { ...tools, open_artifact: openArtifactTool(middleware.store) }, prompt });
 */
export function ctxloomMiddleware(
  options: CtxloomHookOptions,
): LanguageModelMiddleware & { readonly store: ArtifactHandleStore } {
  const store = hookStore(options);
  const cuts = createConversationCuts(
    options.maxConversations === undefined ? {} : { maxConversations: options.maxConversations },
  );
  return {
    specificationVersion: 'v4',
    store,
    async transformParams({ params }) {
      const { messages, originals } = fromModelMessages(params.prompt as unknown as AnyModelMessage[]);
      const tools = callToolDefinitions(params);
      const historyCut = hookHistoryCut(options, cuts, messages);
      const compiled = await compileModelCall({ messages, tools, options, store, historyCut });
      return {
        ...params,
        prompt: toModelPrompt(compiled.messages, {
          originals,
          ...(options.layers === undefined ? {} : { layers: options.layers }),
        }),
        maxOutputTokens: Math.min(
          params.maxOutputTokens ?? Number.POSITIVE_INFINITY,
          compiled.maxOutputTokens,
        ),
      };
    },
  };
}
