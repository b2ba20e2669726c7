import { CtxloomError } from './errors.ts';
import { type Message, partText } from './message.ts';

/**
 * Counts tokens the way one model family does. Implementations live in `ctxloom/tokenizers`
 * (exact BPE and a documented estimator); tests use the character counter of `ctxloom/testing`.
 */
export interface TokenCounter {
  /** Shown in reports, e.g. `o200k_base` or `estimate-cjk`. */
  readonly name: string;
  /** True when counts equal the model's own tokenizer; false for estimators. */
  readonly exact: boolean;
  /** Tokens of a plain string. Never throws for any string, special-token text included. */
  countText(text: string): number;
  /** The family's per-message framing, used by `countMessages`. */
  readonly overhead: MessageOverhead;
  /** Tokens of a list of messages as sent: content plus the family's per-message overhead. */
  countMessages(messages: readonly Message[]): number;
  /**
   * Optional. True when `countText(text) === countText(text.slice(0, index)) +
   * countText(text.slice(index))` for every text with the same two characters at `index − 1`
   * and `index` (so it may look at those two only). Lets {@link countJoined} count a joined
   * text from its parts' counts plus the few characters around each join; a counter without
   * it has joined texts counted in full. Never true where a token could span `index`.
   */
  readonly isSplitPoint?: (text: string, index: number) => boolean;
}

/**
 * The framing a chat API adds around messages, in tokens. OpenAI's chat format costs 3 per
 * message, 1 more for a `name`, and 3 to prime the reply (the tiktoken cookbook's accounting).
 */
export interface MessageOverhead {
  /** Tokens added for each message (role markers). */
  perMessage: number;
  /** Extra tokens when a message carries `name`. */
  perName: number;
  /** Tokens added once per request (reply priming). */
  perRequest: number;
  /** Tokens charged for each file part; an estimate, since media are priced by the provider. */
  perFile: number;
}

/** OpenAI chat-format overhead (gpt-3.5 / gpt-4 / gpt-4o / o-series). */
export const OPENAI_MESSAGE_OVERHEAD: MessageOverhead = {
  perMessage: 3,
  perName: 1,
  perRequest: 3,
  perFile: 85,
};

/** No overhead at all: budgets read straight off the content (the test counters use it). */
export const NO_MESSAGE_OVERHEAD: MessageOverhead = { perMessage: 0, perName: 0, perRequest: 0, perFile: 0 };

/** Options of {@link createTokenCounter}. */
export interface CreateTokenCounterOptions {
  name: string;
  exact: boolean;
  countText: (text: string) => number;
  /** Per-message framing; default {@link OPENAI_MESSAGE_OVERHEAD}. */
  overhead?: MessageOverhead;
  /** See {@link TokenCounter.isSplitPoint}; absent when unknown. */
  isSplitPoint?: (text: string, index: number) => boolean;
}

/** Builds a {@link TokenCounter} from a text counter and the family's message overhead. */
export function createTokenCounter(options: CreateTokenCounterOptions): TokenCounter {
  const overhead = options.overhead ?? OPENAI_MESSAGE_OVERHEAD;
  const countText = options.countText;
  const counter: TokenCounter = {
    name: options.name,
    exact: options.exact,
    overhead,
    countText,
    countMessages: (messages) => countMessagesWith(countText, overhead, messages),
    ...(options.isSplitPoint === undefined ? {} : { isSplitPoint: options.isSplitPoint }),
  };
  perMessage.set(counter, (message) => countMessageWith(countText, overhead, message));
  return counter;
}

/**
 * Counts messages with `countText` for every piece of text the API receives: the role, the
 * name, and each part on its own (parts are separate API fields, so they are never joined).
 */
export function countMessagesWith(
  countText: (text: string) => number,
  overhead: MessageOverhead,
  messages: readonly Message[],
): number {
  if (messages.length === 0) return 0;
  let total = overhead.perRequest;
  for (const message of messages) total += countMessageWith(countText, overhead, message);
  return total;
}

/** One message's own cost: its framing, role, name and content — without the request overhead. */
export function countMessageWith(
  countText: (text: string) => number,
  overhead: MessageOverhead,
  message: Message,
): number {
  let total = overhead.perMessage + countText(message.role);
  if (message.name !== undefined) total += overhead.perName + countText(message.name);
  if (typeof message.content === 'string') return total + countText(message.content);
  for (const part of message.content) {
    total += (part.type === 'file' ? overhead.perFile : 0) + countText(partText(part));
  }
  return total;
}

/**
 * What one message adds to a request, as `counter` counts it: `countMessages([m])` minus the
 * once-per-request overhead (derived from the counter's own `countMessages`, so a counter with
 * its own framing is honoured). For per-message counters, summing it over messages and adding
 * `overhead.perRequest` gives `countMessages(messages)`.
 */
export function countMessage(counter: TokenCounter, message: Message): number {
  const cost = perMessage.get(counter);
  return cost === undefined ? countViaList(counter, message) : cost(message);
}

/**
 * Per-message cost functions of the counters built here, whose `countMessages` is known to
 * be a plain sum over messages: for them one message is measured without building a
 * one-element list (a long history is measured message by message). Keyed by the counter
 * object itself, so a copy that overrides `countMessages` (`{ ...counter, countMessages }`)
 * is not in it and is asked through its own `countMessages`.
 */
const perMessage = new WeakMap<TokenCounter, (message: Message) => number>();

/** Counters built by {@link withTokenCache} (by identity): looking a text up again is cheap. */
const textCached = new WeakSet<TokenCounter>();

/** True when `counter` came from {@link withTokenCache}, so recounting a seen text is a lookup. */
export function isTextCached(counter: TokenCounter): boolean {
  return textCached.has(counter);
}

/** {@link countMessage} bound to `counter` (look it up once to measure many messages). */
export function messageCostOf(counter: TokenCounter): (message: Message) => number {
  return perMessage.get(counter) ?? ((message: Message) => countViaList(counter, message));
}

function countViaList(counter: TokenCounter, message: Message): number {
  return counter.countMessages([message]) - counter.overhead.perRequest;
}

/** The shared cache {@link withSharedTokenCache} made for each counter. */
const sharedCaches = new WeakMap<TokenCounter, CachedTokenCounter>();

/**
 * `counter` with each distinct text tokenised once: itself when it caches already
 * ({@link withTokenCache}) or when its messages are not a plain sum of its texts (a wrapper
 * would count them otherwise); else one {@link withTokenCache} wrapper per counter, made on
 * first use and kept while the counter lives, so every caller handing in the same counter
 * shares one cache. What the session engine and runtime processes count with: each of their
 * calls measures the whole history again, and a counter without a cache would tokenise every
 * message at every call.
 */
export function withSharedTokenCache(counter: TokenCounter): TokenCounter {
  if (textCached.has(counter) || !perMessage.has(counter)) return counter;
  let cached = sharedCaches.get(counter);
  if (cached === undefined) {
    cached = withTokenCache(counter);
    sharedCaches.set(counter, cached);
  }
  return cached;
}

/** Most distinct short strings a cached counter remembers; later ones are counted each time. */
const MAX_SHORT_ENTRIES = 4096;

/** Hit and miss counts of a {@link CachedTokenCounter}. */
export interface TokenCacheStats {
  hits: number;
  misses: number;
  entries: number;
  /** UTF-16 code units held by the cache's keys. */
  characters: number;
}

/** A counter whose text counts are cached by content. */
export interface CachedTokenCounter extends TokenCounter {
  readonly stats: () => TokenCacheStats;
  readonly clear: () => void;
}

/** Options of {@link withTokenCache}. */
export interface TokenCacheOptions {
  /** Most cached strings kept; the oldest are evicted first. Default 50 000, range ≥ 1. */
  maxEntries?: number;
  /** Most UTF-16 code units the cached strings may hold in all. Default 64 Mi (~128 MB). */
  maxCharacters?: number;
  /**
   * Strings shorter than this skip the bounded cache (they would crowd out message texts) and
   * go to a small side table instead — roles, names and short replies repeat on every message,
   * and a lookup costs a tenth of tokenising them. Default 16.
   */
  minLength?: number;
}

/**
 * Wraps a counter so each distinct text is tokenised once. The cache is keyed by the text
 * itself — a hash table over content: the engine hashes a string once and keeps the hash on
 * it, so looking up an unchanged message again costs almost nothing, and equal content in a
 * new string still hits. A recompile after one new message tokenises only that message.
 * Bounded by entries and by total characters (oldest evicted first).
 */
export function withTokenCache(counter: TokenCounter, options: TokenCacheOptions = {}): CachedTokenCounter {
  const maxEntries = options.maxEntries ?? 50_000;
  const maxCharacters = options.maxCharacters ?? 64 * 1024 * 1024;
  const minLength = options.minLength ?? 16;
  if (!Number.isInteger(maxEntries) || maxEntries < 1) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: 'maxEntries must be an integer ≥ 1',
      path: 'maxEntries',
    });
  }
  const overhead = counter.overhead;
  const cache = new Map<string, number>();
  const short = new Map<string, number>();
  let characters = 0;
  let hits = 0;
  let misses = 0;

  const countText = (text: string): number => {
    if (text.length < minLength) {
      const known = short.get(text);
      if (known !== undefined) return known;
      const count = counter.countText(text);
      if (short.size < MAX_SHORT_ENTRIES) short.set(text, count);
      return count;
    }
    const cached = cache.get(text);
    if (cached !== undefined) {
      hits++;
      return cached;
    }
    misses++;
    const count = counter.countText(text);
    if (text.length > maxCharacters) return count;
    while (cache.size > 0 && (cache.size >= maxEntries || characters + text.length > maxCharacters)) {
      const oldest = cache.keys().next();
      if (oldest.done) break;
      characters -= oldest.value.length;
      cache.delete(oldest.value);
    }
    cache.set(text, count);
    characters += text.length;
    return count;
  };

  const cached: CachedTokenCounter = {
    name: counter.name,
    exact: counter.exact,
    overhead,
    countText,
    countMessages: (messages) => countMessagesWith(countText, overhead, messages),
    ...(counter.isSplitPoint === undefined ? {} : { isSplitPoint: counter.isSplitPoint }),
    stats: () => ({ hits, misses, entries: cache.size, characters }),
    clear: () => {
      cache.clear();
      short.clear();
      characters = 0;
      hits = 0;
      misses = 0;
    },
  };
  perMessage.set(cached, (message) => countMessageWith(countText, overhead, message));
  textCached.add(cached);
  return cached;
}
