import { generateText, type LanguageModel } from 'ai';
import { compilePromptCall } from '../ai-sdk/compile-prompt-call.ts';
import { toStepCall } from '../ai-sdk/recompile-each-step.ts';
import { type CompiledContext, CtxloomError, type Summarizer, type TokenCounter } from '../core/index.ts';
import { messageParts, partText } from '../core/message.ts';
import { createO200kCounter } from '../tokenizers/index.ts';

/** Instructions of the model summariser. */
export const SUMMARY_INSTRUCTIONS =
  'You maintain the running summary of a conversation whose oldest turns no longer fit the context window. ' +
  'Merge the previous summary with the new turns. Keep decisions, user requirements (verbatim where short), ' +
  'open questions, names, numbers and tool failures. Write terse bullet points in the language of the conversation.';

/** Options of {@link createModelSummarizer}. */
export interface ModelSummarizerOptions {
  model: LanguageModel;
  /** Shown in reports and the call log. Default `model`. */
  name?: string;
  /** Counts the request; default the o200k tokenizer. */
  counter?: TokenCounter;
  /** The model's context window in tokens: the request and the summary fit in it. Default 128,000. */
  window?: number;
}

/**
 * A `Summarizer` backed by an AI SDK model: it extends the previous summary with the turns
 * leaving the window, keeping decisions, requirements, open questions and tool failures,
 * within `maxTokens` (the call's output reserve). Its request is compiled by core under the
 * window: the oldest turns that fit go in, and the result covers exactly those (a prefix) —
 * a `/compress` over more history than one call holds covers less and says so, and the
 * next `/compress` goes on from there. Each call's compile goes to `onCall` before it is sent.
 */
export function createModelSummarizer(options: ModelSummarizerOptions): Summarizer {
  const counter = options.counter ?? createO200kCounter();
  const window = options.window ?? 128_000;
  return {
    name: options.name ?? 'model',
    async summarize(input) {
      const head = `Previous summary:\n${input.previousSummary ?? '(none)'}\n\nTurns leaving the window:\n`;
      const lines = input.messages.map(
        (message) => `${message.role}: ${messageParts(message).map(partText).join(' ')}\n`,
      );
      if (lines.length === 0) return { text: input.previousSummary ?? '', coveredCount: 0 };
      const request = (count: number) =>
        compilePromptCall({
          instructions: SUMMARY_INSTRUCTIONS,
          prompt: head + lines.slice(0, count).join(''),
          id: 'summary-request',
          counter,
          window,
          maxOutputTokens: input.maxTokens,
          what: 'the summary request',
        });
      // The oldest turns that fit: the request without turns (an `over-budget` error when even
      // that does not fit), then one line at a time.
      const empty = await request(0);
      let room = empty.report.inputBudget - empty.report.totalTokens;
      let count = 0;
      while (count < lines.length) {
        const cost = counter.countText(lines[count] as string);
        if (cost > room) break;
        room -= cost;
        count++;
      }
      if (count === 0) return { text: input.previousSummary ?? '', coveredCount: 0 };
      // Lines counted alone can cost a token more joined: drop turns until the request fits.
      let compiled: CompiledContext | undefined;
      while (compiled === undefined) {
        try {
          compiled = await request(count);
        } catch (error) {
          if (!CtxloomError.is(error, 'over-budget') || count === 1) throw error;
          count--;
        }
      }
      await input.onCall?.(compiled);
      const call = toStepCall(compiled);
      const { text } = await generateText({
        model: options.model,
        instructions: call.instructions,
        messages: call.messages,
        maxOutputTokens: input.maxTokens,
        ...(input.signal === undefined ? {} : { abortSignal: input.signal }),
      });
      return { text: text.trim(), coveredCount: count };
    },
  };
}
