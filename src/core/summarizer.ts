import type { CompiledContext } from './compile-types.ts';
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
  /**
   * Receives the compile of every model call the summariser makes (its report is exactly
   * what is sent), before the call is sent, so the caller can log it. Summarisers that call
   * no model never call it.
   */
  onCall?: (compiled: CompiledContext) => void | Promise<void>;
}

/**
 * A summary and how much of the input it covers: the first `coveredCount` messages of
 * `SummarizeInput.messages` (a prefix, oldest first). A summariser that cannot fit every
 * message covers fewer and says so here; nothing outside the prefix may be reported as
 * summarised.
 */
export interface SummaryResult {
  text: string;
  coveredCount: number;
}

/** Turns messages that no longer fit into a summary for `compression__context`. */
export interface Summarizer {
  /** Shown in reports, e.g. `extractive (offline)` or `model openai:gpt-4o-mini`. */
  readonly name: string;
  /**
   * The summary of `previousSummary` and `messages`. A plain string claims every message;
   * return a {@link SummaryResult} to claim only a prefix.
   */
  summarize(input: SummarizeInput): Promise<string | SummaryResult>;
  /**
   * A per-message summariser's line for one message (`- role: …`), or `undefined` when the
   * message carries no text. When present, a rolling summary (decision 040) builds and
   * condenses its periods line by line, so it knows which messages each text carries.
   */
  summarizeMessage?(message: Message): string | undefined;
}

/** The text and coverage of a {@link Summarizer.summarize} result for `messageCount` messages. */
export function toSummaryResult(result: string | SummaryResult, messageCount: number): SummaryResult {
  if (typeof result === 'string') return { text: result, coveredCount: messageCount };
  return { text: result.text, coveredCount: Math.max(0, Math.min(messageCount, result.coveredCount)) };
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

/** Longest line (characters) the extractive summariser keeps per message. */
const MAX_LINE_CHARS = 240;

/**
 * An offline extractive summariser: keeps, per message, its first sentence and any sentence
 * with a requirement or decision cue (must, decided, 需要, 决定, …), as `role: sentence`
 * bullets (at most 240 characters each), oldest first after the previous summary's bullets.
 * It covers messages in order until the next one does not fit `maxTokens` and returns how
 * many it covered — it never drops an older line to make room for a newer one, so what it
 * reports as summarised is in the text. It never invents text; it is labelled
 * `extractive (offline)` in reports. Use a model summariser for abstractive summaries.
 */
export function createExtractiveSummarizer(options: { counter: TokenCounter }): Summarizer {
  const { counter } = options;
  return {
    name: 'extractive (offline)',
    async summarize(input): Promise<SummaryResult> {
      const header = 'Earlier conversation (extractive summary):';
      const lines: string[] = [];
      if (input.previousSummary !== undefined && input.previousSummary.length > 0) {
        for (const line of input.previousSummary.split('\n')) {
          if (line.startsWith('- ')) lines.push(line);
        }
      }
      let tokens = counter.countText([header, ...lines].join('\n'));
      let coveredCount = 0;
      for (const message of input.messages) {
        const line = extractiveLine(message);
        if (line !== undefined) {
          const cost = counter.countText(`\n${line}`);
          if (tokens + cost > input.maxTokens) break;
          tokens += cost;
          lines.push(line);
        }
        coveredCount += 1;
      }
      return { text: lines.length === 0 ? '' : [header, ...lines].join('\n'), coveredCount };
    },
    summarizeMessage: extractiveLine,
  };
}

/** The extractive summariser's line for a message: its first sentence and those with a cue. */
function extractiveLine(message: Message): string | undefined {
  const text = messageParts(message).map(partText).join(' ').replace(/\s+/gu, ' ').trim();
  if (text.length === 0) return undefined;
  const sentences = sentencesOf(text);
  const picked = sentences.filter((sentence, index) => index === 0 || CUE.test(sentence));
  const joined = picked.join(' ');
  return `- ${message.role}: ${joined.length > MAX_LINE_CHARS ? `${joined.slice(0, MAX_LINE_CHARS - 1)}…` : joined}`;
}

function sentencesOf(text: string): string[] {
  const parts = splitSentences(text).map((span) => span.text);
  return parts.length > 0 ? parts : [text];
}
