import { type ArtifactHandleStore, OPEN_ARTIFACT_TOOL } from './artifact-handles.ts';
import { CtxloomError } from './errors.ts';
import { isHighSurrogate } from './surrogates.ts';
import { createTokenCounter, NO_MESSAGE_OVERHEAD, type TokenCounter } from './tokens.ts';

/** What the last call compiled with an artifact store left for the next tool output. */
export interface ArtifactPageBudget {
  /** The call's token counter: pages are measured with it. */
  counter: TokenCounter;
  /** The call's input budget (`window − reserve`). */
  inputBudget: number;
  /** `inputBudget − totalTokens` of that call. */
  remainingTokens: number;
}

/** Tokens a page leaves free for the call that asks for it (the tool call and its framing). */
export const PAGE_MARGIN_TOKENS = 64;
/** Smallest page, as a share of the input budget: reading always moves forward. */
const MIN_PAGE_SHARE = 1 / 16;
/** Share of the input budget a page takes when nothing says what is left. */
const UNKNOWN_ROOM_SHARE = 0.4;
/** Page size when neither a budget nor a counter is known (counted one token a UTF-16 unit). */
const FALLBACK_PAGE_TOKENS = 4000;
/** Bound of the characters a page of n tokens is searched in (16 n). */
const MAX_CHARS_PER_TOKEN = 16;

const budgets = new WeakMap<ArtifactHandleStore, ArtifactPageBudget>();

/** Remembers, for `store`, what the call just compiled with it leaves (`compileContext` calls it). */
export function recordArtifactPageBudget(store: ArtifactHandleStore, budget: ArtifactPageBudget): void {
  budgets.set(store, budget);
}

/** What the last call compiled with `store` left, or undefined when none was. */
export function artifactPageBudget(store: ArtifactHandleStore): ArtifactPageBudget | undefined {
  return budgets.get(store);
}

/** A counter of one token per UTF-16 unit: an upper bound for BPE text, used without a counter. */
const UNIT_COUNTER = createTokenCounter({
  name: 'utf16-units',
  exact: false,
  countText: (text) => text.length,
  overhead: NO_MESSAGE_OVERHEAD,
});

/** Input of {@link readArtifact} (the `open_artifact` tool's arguments). */
export interface ReadArtifactInput {
  handle: string;
  /** First character to return (a page's `next page` offset). Default 0. */
  offset?: number;
  /** Most tokens the page may take; it never exceeds the room the call has left. */
  maxTokens?: number;
}

/** Options of {@link readArtifact}: how pages are measured when the store's last call does not say. */
export interface ReadArtifactOptions {
  /** Counts the page. Default the counter of the last call compiled with the store. */
  counter?: TokenCounter;
  /** Most tokens a page takes. Default: what the store's last call left, minus a small margin. */
  pageTokens?: number;
  /** Input budget of the calls; without a recorded call, pages take 40 % of it. */
  inputBudget?: number;
}

/** One page of an artifact, as `open_artifact` returns it. */
export interface ArtifactPage {
  handle: string;
  /** First character of the page. */
  offset: number;
  /** One past its last character. */
  end: number;
  /** Length of the whole artifact (UTF-16 code units). */
  length: number;
  text: string;
  /** Where the next page starts; undefined on the last page. */
  nextOffset: number | undefined;
  /** Pages after this one, at this page's size. */
  pagesLeft: number;
  /** The tool output: a header line (range, next page, pages left), then the text. */
  output: string;
  /** Tokens of `output` with the counter that sized it. */
  tokens: number;
}

/**
 * Reads one page of an artifact for the `open_artifact` tool. The page is sized in tokens,
 * with the counter of the last call compiled with the store, to fit what that call left
 * (`inputBudget − totalTokens`, less a margin; at least 1/16 of the input budget, so reading
 * moves forward), or `maxTokens` when smaller; its header says where the next page starts and
 * how many are left. Throws `not-found` for an unknown handle, `invalid-argument` for a bad
 * offset or `maxTokens`.
 */
export function readArtifact(
  store: ArtifactHandleStore,
  input: ReadArtifactInput,
  options: ReadArtifactOptions = {},
): ArtifactPage {
  const content = store.get(input.handle);
  if (content === undefined) {
    throw new CtxloomError({
      code: 'not-found',
      message: `no artifact "${input.handle}" (unknown or evicted)`,
      path: 'handle',
    });
  }
  const offset = input.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0 || offset > content.length) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `offset must be an integer within 0..${content.length}`,
      path: 'offset',
    });
  }
  if (input.maxTokens !== undefined && (!Number.isInteger(input.maxTokens) || input.maxTokens < 1)) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: 'maxTokens must be an integer ≥ 1',
      path: 'maxTokens',
    });
  }
  const budget = artifactPageBudget(store);
  const counter = options.counter ?? budget?.counter ?? UNIT_COUNTER;
  const room = Math.min(pageRoom(budget, options), input.maxTokens ?? Number.POSITIVE_INFINITY);
  const source = { handle: input.handle, length: content.length, offset, text: content.slice(offset) };
  // Too little room for any text: one line's worth anyway, so the reader moves forward.
  return fitPage(source, counter, room) ?? pageOf(source, nextBreak(source.text), counter);
}

function pageRoom(budget: ArtifactPageBudget | undefined, options: ReadArtifactOptions): number {
  if (options.pageTokens !== undefined) return options.pageTokens;
  if (budget !== undefined) {
    const least = Math.max(64, Math.floor(budget.inputBudget * MIN_PAGE_SHARE));
    return Math.max(least, budget.remainingTokens - PAGE_MARGIN_TOKENS);
  }
  if (options.inputBudget !== undefined) return Math.floor(options.inputBudget * UNKNOWN_ROOM_SHARE);
  return FALLBACK_PAGE_TOKENS;
}

/** Where a page's characters come from: `text` starts at `offset` of an artifact of `length`. */
interface PageSource {
  handle: string;
  length: number;
  offset: number;
  text: string;
}

/**
 * The largest page that starts the source's text and whose output fits `maxTokens`, or
 * undefined when not even one character fits. It ends after a line break when one falls in
 * the last quarter of the room (whole lines found by counting each line once, then checked
 * with one exact count), else inside a line (a binary search, never splitting a surrogate pair).
 */
function fitPage(source: PageSource, counter: TokenCounter, maxTokens: number): ArtifactPage | undefined {
  const { text } = source;
  // No token is longer than MAX_CHARS_PER_TOKEN characters in practice: a longer text cannot fit.
  const high = Math.min(text.length, maxTokens * MAX_CHARS_PER_TOKEN);
  if (high === text.length) {
    const whole = pageOf(source, high, counter);
    if (whole.tokens <= maxTokens) return whole;
  }
  // Whole lines: the count of lines joined is about the sum of their counts (a tokenizer
  // does not merge across a line break); the exact count then takes back lines while over.
  const ends: number[] = [];
  const header = counter.countText(renderPage(source, 0));
  let tokens = header;
  for (let start = 0; start < high; ) {
    const lineEnd = text.indexOf('\n', start);
    const end = lineEnd < 0 ? text.length : lineEnd + 1;
    if (end > high) break;
    tokens += counter.countText(text.slice(start, end));
    if (tokens > maxTokens) break;
    ends.push(end);
    start = end;
  }
  let lines: ArtifactPage | undefined;
  for (let tries = 0; ends.length > 0 && tries < 4 && lines === undefined; tries++) {
    const page = pageOf(source, ends.at(-1) as number, counter);
    if (page.tokens <= maxTokens) lines = page;
    else ends.pop();
  }
  // The page ends at a line break that falls in the last quarter of the room the header leaves
  // (decision 045); an earlier one (the rest of a line the page before cut, then one too long
  // for the room) would leave a page of a few characters.
  if (
    lines !== undefined &&
    ((lines.tokens - header) * 4 >= (maxTokens - header) * 3 || lines.nextOffset === undefined)
  )
    return lines;
  // No line break in the last quarter (or the sum was far off): the longest prefix that fits.
  let low = lines === undefined ? 0 : lines.end - source.offset;
  let top = lines === undefined && ends.length > 0 ? (ends.at(-1) as number) : high;
  while (low < top) {
    const middle = Math.ceil((low + top) / 2);
    if (counter.countText(renderPage(source, middle)) <= maxTokens) low = middle;
    else top = middle - 1;
  }
  if (low > 1 && isHighSurrogate(text.charCodeAt(low - 1))) low -= 1;
  if (lines !== undefined && low <= lines.end - source.offset) return lines;
  return low === 0 ? undefined : pageOf(source, low, counter);
}

function pageOf(source: PageSource, size: number, counter: TokenCounter): ArtifactPage {
  const { handle, length, offset } = source;
  const output = renderPage(source, size);
  const end = offset + size;
  return {
    handle,
    offset,
    end,
    length,
    text: source.text.slice(0, size),
    nextOffset: end < length ? end : undefined,
    pagesLeft: pagesAfter(length, offset, end),
    output,
    tokens: counter.countText(output),
  };
}

/** The first `size` characters of the source as a page: a header line, then the text. */
function renderPage(source: PageSource, size: number): string {
  const { handle, length, offset } = source;
  const end = offset + size;
  const text = source.text.slice(0, size);
  const range = `[${handle} · characters ${offset}–${end} of ${length}`;
  if (end >= length) return `${range} · last page]\n${text}`;
  const left = pagesAfter(length, offset, end);
  const next = JSON.stringify({ handle, offset: end });
  return `${range} · next page: ${OPEN_ARTIFACT_TOOL} ${next} · about ${left} more page${left === 1 ? '' : 's'}]\n${text}`;
}

function pagesAfter(length: number, offset: number, end: number): number {
  return Math.ceil((length - end) / Math.max(1, end - offset));
}

const PAGE_HEADER = /^\[(art_[0-9a-f]+) · characters (\d+)–(\d+) of (\d+)(?: · [^\n]*)?\]\n/u;

/** A page as found in an `open_artifact` result: its handle, range and text. */
export interface ParsedPage {
  handle: string;
  offset: number;
  end: number;
  length: number;
  text: string;
}

/** Reads the range and text back from a page's output, or undefined when it is not one. */
export function parsePage(output: string): ParsedPage | undefined {
  const match = PAGE_HEADER.exec(output);
  if (match === null) return undefined;
  const [header, handle, offset, end, length] = match as unknown as [string, string, string, string, string];
  const text = output.slice(header.length);
  if (Number(end) - Number(offset) !== text.length) return undefined;
  return { handle, offset: Number(offset), end: Number(end), length: Number(length), text };
}

/**
 * The same page cut to fit `maxTokens` (its header saying where the rest starts), or
 * undefined when not even one character fits: what `open_artifact` would have returned with
 * that room.
 */
export function shrinkPage(page: ParsedPage, counter: TokenCounter, maxTokens: number): string | undefined {
  return fitPage(page, counter, maxTokens)?.output;
}

/**
 * What stands for a page left out of a call: its range and how to read it again — or, for the
 * newest page when not even a line of it fits (`shown` false), that it did not fit.
 */
export function pageStub(page: ParsedPage, shown = true): string {
  const again = JSON.stringify({ handle: page.handle, offset: page.offset });
  const range = `[${page.handle} · characters ${page.offset}–${page.end} of ${page.length}`;
  return shown
    ? `${range} were shown here; call ${OPEN_ARTIFACT_TOOL} with ${again} to read them again]`
    : `${range} did not fit this call's room; call ${OPEN_ARTIFACT_TOOL} with ${again} to read them when the conversation leaves more room]`;
}

function nextBreak(text: string): number {
  const lineEnd = text.indexOf('\n');
  return Math.min(lineEnd < 0 ? text.length : lineEnd + 1, 200);
}
