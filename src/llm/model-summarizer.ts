import { generateText, type LanguageModel } from 'ai';
import type { Summarizer } from '../core/index.ts';
import { messageParts, partText } from '../core/message.ts';

/**
 * A `Summarizer` backed by an AI SDK model (`generateText`): it extends the previous summary
 * with the turns leaving the window, keeping decisions, requirements, open questions and
 * tool failures, within `maxTokens` (passed as `maxOutputTokens`).
 */
export function createModelSummarizer(options: { model: LanguageModel; name?: string }): Summarizer {
  return {
    name: options.name ?? 'model',
    async summarize(input) {
      const transcript = input.messages
        .map((message) => `${message.role}: ${messageParts(message).map(partText).join(' ')}`)
        .join('\n');
      const { text } = await generateText({
        model: options.model,
        instructions:
          'You maintain the running summary of a conversation whose oldest turns no longer fit the context window. ' +
          'Merge the previous summary with the new turns. Keep decisions, user requirements (verbatim where short), ' +
          'open questions, names, numbers and tool failures. Write terse bullet points in the language of the conversation.',
        prompt: `Previous summary:\n${input.previousSummary ?? '(none)'}\n\nTurns leaving the window:\n${transcript}`,
        maxOutputTokens: input.maxTokens,
        ...(input.signal === undefined ? {} : { abortSignal: input.signal }),
      });
      return text.trim();
    },
  };
}
