import { type Message, messageParts, partText } from './message.ts';
import { splitSentences } from './split-sentences.ts';
import type { TokenCounter } from './tokens.ts';

/** Input of {@link Summarizer.summarize}. */
export interface SummarizeInput {
  /** The summary so far (from `compression__context`), to be extended, not repeated. */
  previousSummary?: string;
  /** Messages leaving the window, oldest first. */
  messages: readonly Message[];
  /** The summary must fit in this many tokens. */
  maxTokens: number;
  signal?: AbortSignal;
}

/** Turns messages that no longer fit into a summary for `compression__context`. */
export interface Summarizer {
  /** Shown in reports, e.g. `extractive (offline)` or `model openai:gpt-4o-mini`. */
  readonly name: string;
  summarize(input: SummarizeInput): Promise<string>;
}

/** What a compile hands to `onSummary` for persistence in `compression__context`. */
export interface CompressionSummary {
  summary: string;
  /** Id of the newest message the summary covers; later compiles skip it and older ones. */
  throughMessageId: string;
  /** Ids of the messages this compile summarised. */
  coveredMessageIds: string[];
  tokens: number;
}

const CUE =
  /\b(must|need|needs|should|decided|decide|agreed|require|required|todo|deadline|error|failed|prefer|don't|never|always)\b|必须|需要|决定|要求|不要|务必|截止|错误|失败|希望|确认/iu;

/**
 * An offline extractive summariser: keeps, per message, its first sentence and any sentence
 * with a requirement or decision cue (must, decided, 需要, 决定, …), as `role: sentence`
 * bullets, newest last, until `maxTokens`. It never invents text; it is labelled
 * `extractive (offline)` in reports. Use a model summariser for abstractive summaries.
 */
export function createExtractiveSummarizer(options: { counter: TokenCounter }): Summarizer {
  const { counter } = options;
  return {
    name: 'extractive (offline)',
    async summarize(input) {
      const header = 'Earlier conversation (extractive summary):';
      const lines: string[] = [];
      if (input.previousSummary !== undefined && input.previousSummary.length > 0) {
        for (const line of input.previousSummary.split('\n')) {
          if (line.startsWith('- ')) lines.push(line);
        }
      }
      for (const message of input.messages) {
        const text = messageParts(message).map(partText).join(' ').replace(/\s+/gu, ' ').trim();
        if (text.length === 0) continue;
        const sentences = sentencesOf(text);
        const picked = sentences.filter((sentence, index) => index === 0 || CUE.test(sentence));
        const line = `- ${message.role}: ${picked.join(' ').slice(0, 400)}`;
        lines.push(line);
      }
      // Keep the newest lines that fit: the most recent context matters most.
      const kept: string[] = [];
      let tokens = counter.countText(header);
      for (let index = lines.length - 1; index >= 0; index--) {
        const line = lines[index] as string;
        const cost = counter.countText(`\n${line}`);
        if (tokens + cost > input.maxTokens) {
          // The newest line that does not fit whole is cut (with an ellipsis) when nothing was kept yet.
          if (kept.length === 0) {
            const cut = cutToTokens(line, input.maxTokens - tokens, counter);
            if (cut !== undefined) kept.unshift(cut);
          }
          break;
        }
        tokens += cost;
        kept.unshift(line);
      }
      return kept.length === 0 ? '' : [header, ...kept].join('\n');
    },
  };
}

function sentencesOf(text: string): string[] {
  const parts = splitSentences(text).map((span) => span.text);
  return parts.length > 0 ? parts : [text];
}

function cutToTokens(line: string, maxTokens: number, counter: TokenCounter): string | undefined {
  let low = 0;
  let high = line.length;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (counter.countText(`\n${line.slice(0, middle)}…`) <= maxTokens) low = middle;
    else high = middle - 1;
  }
  return low >= 8 ? `${line.slice(0, low)}…` : undefined;
}
