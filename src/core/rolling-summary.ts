import type { CompiledContext } from './compile-types.ts';
import type { Message } from './message.ts';
import { createExtractiveSummarizer, type Summarizer, toSummaryResult } from './summarizer.ts';
import type { TokenCounter } from './tokens.ts';

/**
 * One period of a rolling summary (decision 040): the summary of a contiguous run of a
 * session's messages. `level` 0 is as written when the run passed the cut; each merge of two
 * periods makes a coarser one (level + 1).
 */
export interface SummaryPeriod {
  /** 1-based position of the run's first message in the session's conversation. */
  from: number;
  /** Messages in the run. */
  count: number;
  fromMessageId: string;
  throughMessageId: string;
  level: number;
  /** The period's text: one `- role: …` line per carried message (per-message summarisers) or a model's text. */
  text: string;
  /**
   * Ids of the messages the text carries — one per line, in order, for a per-message
   * summariser. Absent: the text stands for the whole run (a model's summary claims it all).
   */
  carried?: string[];
  summarizer: string;
}

/** Input of {@link rollSummary}. */
export interface RollSummaryInput {
  periods: readonly SummaryPeriod[];
  /** The messages that just passed the cut, oldest first, as the model would see them (curated). */
  messages: readonly Message[];
  /** 1-based position of `messages[0]` in the conversation. */
  from: number;
  /** Most tokens of the rendered summary (periods and headers). */
  capTokens: number;
  counter: TokenCounter;
  summarizer: Summarizer;
  signal?: AbortSignal;
  onCall?: (compiled: CompiledContext) => void | Promise<void>;
}

/** Result of {@link rollSummary}. */
export interface RolledSummary {
  periods: SummaryPeriod[];
  /** The rendered text (what `compression__context` sends). */
  text: string;
  tokens: number;
  /** The summariser that wrote the new period (the extractive one when the configured one failed). */
  summarizer: string;
  /** The configured summariser's error, when it failed and the extractive one stood in. */
  failure?: string;
}

/**
 * Rolls a session's summary forward (decision 040): the messages that passed the cut become a
 * new period, then, while the rendered summary exceeds `capTokens`, the two oldest periods
 * merge into one coarser period of about half their size — so coverage stays contiguous from
 * the first message to the cut, recent periods in detail and old ones coarse, and the summary
 * never freezes at its cap. A per-message summariser (`summarizeMessage`, e.g. the extractive
 * one) condenses by keeping its most informative lines, so every period knows which messages
 * its text carries; any other summariser rewrites the texts. A summariser that throws is
 * replaced by the extractive one for this roll, and the result says so (`failure`).
 */
export async function rollSummary(input: RollSummaryInput): Promise<RolledSummary> {
  const { counter } = input;
  const extractive = createExtractiveSummarizer({ counter });
  let summarizer = input.summarizer;
  let failure: string | undefined;
  const periods = [...input.periods];
  if (input.messages.length > 0) {
    let made: SummaryPeriod;
    try {
      made = await summarizePeriod(input, summarizer, input.messages, input.from);
    } catch (error) {
      if (input.signal?.aborted === true) throw error;
      failure = error instanceof Error ? error.message : String(error);
      summarizer = extractive;
      made = await summarizePeriod(input, summarizer, input.messages, input.from);
    }
    periods.push(made);
  }
  // While the whole exceeds the cap: merge the two oldest periods (three or more), else
  // condense the older of two alone, else the one period — the newest stays in detail longest.
  for (let guard = 0; guard < 64 && renderedTokens(periods, counter) > input.capTokens; guard++) {
    const [first, second] = periods;
    if (first === undefined) break;
    const parts = periods.length >= 3 && second !== undefined ? [first, second] : [first];
    const partTokens = parts.reduce((sum, part) => sum + periodTokens(part, counter), 0);
    const room = Math.max(16, input.capTokens - renderedTokens(periods.slice(parts.length), counter));
    const merged = await condense(input, summarizer, parts, Math.min(room, Math.floor(partTokens / 2)));
    periods.splice(0, parts.length, merged);
    if (parts.length === 1 && periodTokens(merged, counter) === 0) {
      // Nothing left of the oldest: it joins the next one, or the summary is as small as it gets.
      if (periods.length === 1) break;
      const [empty, next] = periods as [SummaryPeriod, SummaryPeriod];
      periods.splice(0, 2, await condense(input, summarizer, [empty, next], periodTokens(next, counter)));
    }
  }
  const text = renderSummary(periods);
  return {
    periods,
    text,
    tokens: text === '' ? 0 : counter.countText(text),
    summarizer: summarizer.name,
    ...(failure === undefined ? {} : { failure }),
  };
}

async function summarizePeriod(
  input: RollSummaryInput,
  summarizer: Summarizer,
  messages: readonly Message[],
  from: number,
): Promise<SummaryPeriod> {
  const first = messages[0] as Message;
  const last = messages.at(-1) as Message;
  const base = {
    from,
    count: messages.length,
    fromMessageId: first.id,
    throughMessageId: last.id,
    level: 0,
    summarizer: summarizer.name,
  };
  if (summarizer.summarizeMessage !== undefined) {
    const lines: string[] = [];
    const carried: string[] = [];
    for (const message of messages) {
      const line = summarizer.summarizeMessage(message);
      if (line === undefined) continue;
      lines.push(line);
      carried.push(message.id);
    }
    return { ...base, text: lines.join('\n'), carried };
  }
  const result = toSummaryResult(
    await summarizer.summarize({
      messages,
      maxTokens: input.capTokens,
      ...(input.signal === undefined ? {} : { signal: input.signal }),
      ...(input.onCall === undefined ? {} : { onCall: input.onCall }),
    }),
    messages.length,
  );
  // A model that could not take every message in one request summarises the rest in turn.
  if (result.coveredCount > 0 && result.coveredCount < messages.length) {
    const head = {
      ...base,
      count: result.coveredCount,
      throughMessageId: (messages[result.coveredCount - 1] as Message).id,
      text: result.text,
    };
    const tail = await summarizePeriod(
      input,
      summarizer,
      messages.slice(result.coveredCount),
      from + result.coveredCount,
    );
    return condense(input, summarizer, [head, tail], input.capTokens);
  }
  return { ...base, text: result.text };
}

/** Merges adjacent periods into one of at most `maxTokens` (coarser: level + 1). */
async function condense(
  input: RollSummaryInput,
  summarizer: Summarizer,
  parts: readonly SummaryPeriod[],
  maxTokens: number,
): Promise<SummaryPeriod> {
  const first = parts[0] as SummaryPeriod;
  const last = parts.at(-1) as SummaryPeriod;
  const merged = {
    from: first.from,
    count: parts.reduce((sum, part) => sum + part.count, 0),
    fromMessageId: first.fromMessageId,
    throughMessageId: last.throughMessageId,
    level: Math.max(...parts.map((part) => part.level)) + 1,
  };
  if (parts.every((part) => part.carried !== undefined)) {
    const lines = parts.flatMap((part) => splitLines(part.text));
    const carried = parts.flatMap((part) => part.carried as string[]);
    const kept = keepInformativeLines(lines, maxTokens, input.counter);
    return {
      ...merged,
      text: kept.map((index) => lines[index]).join('\n'),
      carried: kept.map((index) => carried[index] as string),
      summarizer: first.summarizer,
    };
  }
  const messages: Message[] = parts.map((part) => ({
    id: `summary:${part.fromMessageId}`,
    role: 'user',
    content: `${periodHeader(part)}\n${part.text}`,
  }));
  let text: string;
  try {
    const result = toSummaryResult(
      await summarizer.summarize({
        messages,
        maxTokens,
        ...(input.signal === undefined ? {} : { signal: input.signal }),
        ...(input.onCall === undefined ? {} : { onCall: input.onCall }),
      }),
      messages.length,
    );
    text = result.coveredCount === messages.length ? result.text : parts.map((part) => part.text).join('\n');
  } catch (error) {
    if (input.signal?.aborted === true) throw error;
    text = parts.map((part) => part.text).join('\n');
  }
  // Whatever the summariser wrote, the period stays within its share (cut at a line).
  const lines = splitLines(text);
  const kept = keepInformativeLines(lines, maxTokens, input.counter);
  return { ...merged, text: kept.map((index) => lines[index]).join('\n'), summarizer: summarizer.name };
}

/**
 * Indices of the lines to keep within `maxTokens`, in order: the most informative first
 * (decisions and requirements, then figures and names, then the user's words), ties to the
 * newer line.
 */
function keepInformativeLines(lines: readonly string[], maxTokens: number, counter: TokenCounter): number[] {
  const ranked = lines
    .map((line, index) => ({ index, score: lineScore(line), cost: counter.countText(`${line}\n`) }))
    .sort((a, b) => b.score - a.score || b.index - a.index);
  const kept: number[] = [];
  let used = 0;
  for (const line of ranked) {
    if (used + line.cost > maxTokens) continue;
    used += line.cost;
    kept.push(line.index);
  }
  return kept.sort((a, b) => a - b);
}

const DECISION_CUE =
  /\b(must|need|needs|should|decided|decide|agreed|require|required|todo|deadline|error|failed|prefer|never|always|plan|will)\b|必须|需要|决定|要求|不要|务必|截止|错误|失败|希望|确认|计划/iu;

function lineScore(line: string): number {
  let score = 0;
  if (DECISION_CUE.test(line)) score += 3;
  if (/\d/u.test(line)) score += 1;
  if (/(?:^|[^.!?]\s)[A-Z][a-z]{2,}/u.test(line.slice(8))) score += 1;
  if (line.startsWith('- user:')) score += 1;
  return score;
}

function splitLines(text: string): string[] {
  return text === '' ? [] : text.split('\n');
}

function periodHeader(period: SummaryPeriod): string {
  const to = period.from + period.count - 1;
  const range = period.count === 1 ? `Message ${period.from}` : `Messages ${period.from}–${to}`;
  return period.level === 0 ? `${range}:` : `${range} (condensed):`;
}

/**
 * The text a rolling summary sends: a heading naming the range it covers, then each period's
 * heading and text, oldest first. `replace` rewrites the line of a message that must no
 * longer reach the model as it was summarised (dismissed or excluded afterwards): a string
 * replaces the line, `null` removes it, `undefined` keeps it. A period whose text is not per
 * message cannot replace lines — its caller summarises it again instead.
 */
export function renderSummary(
  periods: readonly SummaryPeriod[],
  options: {
    replace?: (messageId: string) => string | null | undefined;
    /** Added to the heading, e.g. how to find what the summary leaves out. */
    note?: string;
  } = {},
): string {
  if (periods.length === 0) return '';
  const last = periods.at(-1) as SummaryPeriod;
  const note = options.note === undefined ? '' : ` (${options.note})`;
  const parts = [`Summary of messages 1–${last.from + last.count - 1}${note}:`];
  const replace = options.replace;
  for (const period of periods) {
    const lines = splitLines(period.text);
    parts.push(periodHeader(period));
    if (replace === undefined || period.carried === undefined) {
      parts.push(...lines);
      continue;
    }
    lines.forEach((line, index) => {
      const replaced = replace(period.carried?.[index] ?? '');
      if (replaced === undefined) parts.push(line);
      else if (replaced !== null) parts.push(replaced);
    });
  }
  return parts.join('\n');
}

/**
 * Ids of the covered messages no sent text carries: in a per-message period's run without a
 * line of their own (a model's period carries its whole run). `conversation` is the session's
 * conversation, oldest first, positions as in the periods.
 */
export function uncarriedIds(
  periods: readonly SummaryPeriod[],
  conversation: readonly Message[],
): Set<string> {
  const ids = new Set<string>();
  for (const period of periods) {
    if (period.carried === undefined) continue;
    const carried = new Set(period.carried);
    for (let position = period.from; position < period.from + period.count; position++) {
      const message = conversation[position - 1];
      if (message !== undefined && !carried.has(message.id)) ids.add(message.id);
    }
  }
  return ids;
}

function renderedTokens(periods: readonly SummaryPeriod[], counter: TokenCounter): number {
  const text = renderSummary(periods);
  return text === '' ? 0 : counter.countText(text);
}

function periodTokens(period: SummaryPeriod, counter: TokenCounter): number {
  return period.text === '' ? 0 : counter.countText(period.text);
}
