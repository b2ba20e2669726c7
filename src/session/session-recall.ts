import { frozenMessageMemo } from '../core/deep-freeze.ts';
import { fingerprintContent } from '../core/fingerprint.ts';
import {
  type ContextBlock,
  type ContextSource,
  createBlock,
  type Message,
  type TokenCounter,
} from '../core/index.ts';
import { toolInputText, toolOutputText } from '../core/message.ts';
import { EARLIER_TURN_MAX_TOKENS } from '../core/tool-result-placeholders.ts';
import {
  type ConversationIndex,
  createConversationIndex,
  createVectorIndex,
  type Embedder,
  type VectorIndex,
} from '../retrieval/index.ts';

/** The layer a long session's recalled messages fill (decision 040). */
export const RECALL_LAYER = 'recall__context';
/** The model's tool for searching a session's history (decision 040). */
export const SEARCH_HISTORY_TOOL = 'search_history';
/** Most hits a recall ranks before packing (the slot is usually full long before). */
const RECALL_CANDIDATES = 400;

/**
 * The conversation indexes of an engine's sessions (decision 040): one per session, built on
 * a session's first call in this process and appended to on later calls, over every message
 * of the conversation (commands and system messages left out).
 */
export interface SessionIndexes {
  /** The session's index, brought up to `conversation` (rebuilt when the record changed under it). */
  sync(sessionId: string, conversation: readonly Message[]): ConversationIndex;
  /**
   * With an embedder: the session's vector index, every message of `conversation` embedded
   * (only the new ones are sent to the embedder). `undefined` without one.
   */
  syncVectors(sessionId: string, conversation: readonly Message[]): Promise<SessionVectors | undefined>;
  /**
   * The recall a session holds until its cut moves (decision 063); `undefined` when none.
   * `holder`: whose recall — the chat turn's (default) or an agent's of a process turn (each asks
   * its own questions, decision 076).
   */
  heldRecall(sessionId: string, holder?: string): HeldRecall | undefined;
  /** Holds a session's recall (`holder`'s), or lets it go (`undefined`). */
  holdRecall(sessionId: string, held: HeldRecall | undefined, holder?: string): void;
  /**
   * Notes the tokens a turn's tool steps took so far (its latest call's steps; 0 at its first
   * call); the room the next turns leave their steps is read with {@link SessionIndexes.stepRoom}.
   */
  noteSteps(sessionId: string, turnId: string, tokens: number, holder?: string): void;
  /** The room the session's last turns' steps took (the most of them), `turnId`'s own left out. */
  stepRoom(sessionId: string, turnId: string | undefined, holder?: string): number;
  /** Forgets a session (deleted): its indexes, and every holder's recall and step room. */
  drop(sessionId: string): void;
}

/**
 * A whole recall held from call to call (decision 063): when a recall holds every message its
 * query finds behind the cut, it is sent — before the history — with the same messages until
 * the cut moves, so it stays in the cached prefix. A call that needs room drops its
 * lowest-ranked messages for good; a later query that finds a message outside `whole` ends it.
 */
export interface HeldRecall {
  /** The cut it was made behind (the summary's `throughMessageId`). */
  throughMessageId: string;
  /** Every message the query that made it found, rank order. */
  whole: readonly string[];
  /** The messages it still holds, rank order (those a call dropped are gone). */
  ids: readonly string[];
}

/** A session's message vectors and the embedder that made them (decision 040). */
export interface SessionVectors {
  index: VectorIndex;
  embedder: Embedder;
}

/** Messages sent to the embedder in one request. */
const EMBED_BATCH = 64;

/**
 * Creates the per-engine {@link SessionIndexes}; with an `embedder`, recall also ranks by
 * vectors (fused with the lexical ranking).
 */
export function createSessionIndexes(options: { embedder?: Embedder } = {}): SessionIndexes {
  const indexes = new Map<string, { index: ConversationIndex; ids: string[] }>();
  const vectors = new Map<string, VectorIndex>();
  // By session, then by holder ('' the chat turn's, an agent's id): `drop` forgets them all.
  const held = new Map<string, Map<string, HeldRecall>>();
  const steps = new Map<string, Map<string, { turnId: string; tokens: number }[]>>();
  const bySession = <T>(maps: Map<string, Map<string, T>>, sessionId: string): Map<string, T> => {
    let map = maps.get(sessionId);
    if (map === undefined) {
      map = new Map();
      maps.set(sessionId, map);
    }
    return map;
  };
  return {
    noteSteps(sessionId, turnId, tokens, holder = '') {
      const byHolder = bySession(steps, sessionId);
      let turns = byHolder.get(holder);
      if (turns === undefined) {
        turns = [];
        byHolder.set(holder, turns);
      }
      const last = turns.at(-1);
      if (last?.turnId === turnId) last.tokens = Math.max(last.tokens, tokens);
      else {
        turns.push({ turnId, tokens });
        if (turns.length > STEP_TURNS_SEEN) turns.shift();
      }
    },
    stepRoom(sessionId, turnId, holder = '') {
      // The most of the last turns that took steps, among the turns seen lately.
      const taken = (steps.get(sessionId)?.get(holder) ?? []).filter(
        (turn) => turn.turnId !== turnId && turn.tokens > 0,
      );
      let most = 0;
      for (const turn of taken.slice(-STEP_TURNS_KEPT)) most = Math.max(most, turn.tokens);
      return most;
    },
    heldRecall: (sessionId, holder = '') => held.get(sessionId)?.get(holder),
    holdRecall(sessionId, recall, holder = '') {
      if (recall === undefined) held.get(sessionId)?.delete(holder);
      else bySession(held, sessionId).set(holder, recall);
    },
    async syncVectors(sessionId, conversation) {
      const embedder = options.embedder;
      if (embedder === undefined) return undefined;
      let index = vectors.get(sessionId);
      if (index === undefined) {
        index = createVectorIndex({ dimensions: embedder.dimensions });
        vectors.set(sessionId, index);
      }
      const vectorIndex = index;
      const missing = conversation.filter(
        (message) => !vectorIndex.has(message.id) && indexedText(message).trim() !== '',
      );
      for (let start = 0; start < missing.length; start += EMBED_BATCH) {
        const batch = missing.slice(start, start + EMBED_BATCH);
        const embedded = await embedder.embed(batch.map((message) => indexedText(message)));
        batch.forEach((message, position) => {
          const vector = embedded[position];
          if (vector?.some((value) => value !== 0)) vectorIndex.add(message.id, vector);
        });
      }
      return { index: vectorIndex, embedder };
    },
    sync(sessionId, conversation) {
      let entry = indexes.get(sessionId);
      const indexed = entry?.ids.length ?? 0;
      // The record only grows; anything else (a session deleted and made again) rebuilds.
      const stale =
        entry === undefined ||
        indexed > conversation.length ||
        (indexed > 0 && conversation[indexed - 1]?.id !== entry.ids[indexed - 1]) ||
        (indexed > 0 && conversation[0]?.id !== entry.ids[0]);
      if (entry === undefined || stale) {
        // Each message indexed with three neighbours a side: answers are found by the words of
        // the question around them (LoCoMo: 76.8 % of evidence in 3,000 tokens against 72.8 % with one).
        entry = { index: createConversationIndex({ name: 'session', indexContext: 3 }), ids: [] };
        indexes.set(sessionId, entry);
      }
      const fresh = conversation.slice(entry.ids.length);
      if (fresh.length > 0) {
        entry.index.append(fresh.map((message) => ({ id: message.id, text: indexedText(message) })));
        for (const message of fresh) entry.ids.push(message.id);
      }
      return entry.index;
    },
    drop(sessionId) {
      indexes.delete(sessionId);
      vectors.delete(sessionId);
      held.delete(sessionId);
      steps.delete(sessionId);
    },
  };
}

/**
 * Turns with steps whose room a session remembers; the most of them is left for the next
 * turn's steps (decision 068: 2 left the recall shrinking in too many steps, 5 left it little).
 */
const STEP_TURNS_KEPT = 3;
/** Turns a session's step memory looks back over: after as many turns without steps, none is left room. */
const STEP_TURNS_SEEN = 10;

/** Options of {@link createRecallSource}. */
export interface RecallSourceOptions {
  index: ConversationIndex;
  /** The conversation as the model sees it (curated), by id, with 1-based positions: what a recalled block shows. */
  messages: Pick<ReadonlyMap<string, { message: Message; position: number }>, 'get'>;
  /** Whether a message may be recalled: behind the cut, not curated away. */
  eligible: (messageId: string) => boolean;
  /** Most tokens of recalled blocks (the recall slot). */
  maxTokens: number;
  /**
   * A lower limit set for the calls of one turn (decision 068): what the call leaves the recall
   * once the turn's steps have their room. Read at each collect; `undefined` for none.
   */
  capTokens?: () => number | undefined;
  /** Message vectors: their ranking is fused with the lexical one (reciprocal rank). */
  vectors?: SessionVectors;
  /**
   * The held recall (decision 063), read at each collect (a turn's first call may end it): sent
   * as it is — its messages, their rank kept — unless the query finds a message outside its `whole`.
   */
  held?: () => HeldRecall | undefined;
  /**
   * Receives the outcome of each collect: `held` when the held recall was sent; `whole` (its
   * messages in rank order) when the ranking's every hit was picked, so it may be held.
   */
  onCollect?: (outcome: { held: boolean; whole: readonly string[] | undefined }) => void;
}

/**
 * The recall of a long session (decision 040): the messages behind the cut most relevant to
 * the call's query (BM25 over the session's conversation index, each message indexed with
 * its neighbours), packed by rank until `maxTokens` is full, one block per message naming it
 * (`metadata.messageId`, so the report marks it `recalled`), sent in conversation order.
 */
export function createRecallSource(options: RecallSourceOptions): ContextSource {
  return {
    name: 'recall',
    layer: RECALL_LAYER,
    priority: 0.85,
    async collect(request) {
      const query = request.query.trim();
      const cap = options.capTokens?.();
      const maxTokens = cap === undefined ? options.maxTokens : Math.min(cap, options.maxTokens);
      if (query === '' || maxTokens <= 0) return [];
      const lexical = options.index.lexical.search(query, {
        limit: RECALL_CANDIDATES,
        filter: options.eligible,
      });
      const hits =
        options.vectors === undefined
          ? lexical
          : fuse(lexical, await vectorHits(options.vectors, query, options.eligible));
      // What a recall carries of message `id`; undefined when nothing (a tool result too long
      // to recall stays behind the cut, unsent).
      const carried = (id: string) => {
        const entry = options.messages.get(id);
        return entry === undefined ? undefined : recalledText(entry.message, entry.position, request.counter);
      };
      const block = (id: string, rank: number, score: number) => {
        const text = carried(id);
        if (text === undefined) return undefined;
        return {
          position: text.position,
          block: createBlock(
            {
              id: `recall:${id}`,
              layer: RECALL_LAYER,
              source: 'recall',
              content: text.content,
              tokens: text.tokens,
              fingerprint: text.fingerprint,
              priority: Math.max(0.01, 1 - rank / RECALL_CANDIDATES),
              metadata: { messageId: id, score },
            },
            request.counter,
          ),
        };
      };
      const held = options.held?.();
      if (held !== undefined && hits.length < RECALL_CANDIDATES) {
        const whole = new Set(held.whole);
        // A hit with nothing to carry was never in a whole recall either.
        if (hits.every((hit) => whole.has(hit.id) || carried(hit.id) === undefined)) {
          options.onCollect?.({ held: true, whole: undefined });
          const kept: { block: ContextBlock; position: number }[] = [];
          let usedHeld = 0;
          for (const [rank, id] of held.ids.entries()) {
            const entry = options.eligible(id) ? block(id, rank, 0) : undefined;
            if (entry === undefined) continue;
            // Under a turn's cap the held recall keeps its best-ranked messages (decision 068).
            if (cap !== undefined && usedHeld + entry.block.tokens + 1 > maxTokens) break;
            usedHeld += entry.block.tokens + 1;
            kept.push(entry);
          }
          return kept.sort((a, b) => a.position - b.position).map((entry) => entry.block);
        }
      }
      const picked: { block: ContextBlock; position: number }[] = [];
      // Whole: the ranking was not cut at its candidate limit and no hit was left out (by the
      // turn's cap either, decision 068: a capped recall is not held).
      let complete = hits.length < RECALL_CANDIDATES;
      let used = 0;
      for (const [rank, hit] of hits.entries()) {
        const entry = block(hit.id, rank, hit.score);
        if (entry === undefined) continue;
        // Separator between blocks of one layer: one token (select-call's SEPARATOR_TOKENS).
        if (used + entry.block.tokens + 1 > maxTokens) {
          complete = false;
          continue;
        }
        used += entry.block.tokens + 1;
        picked.push(entry);
        if (maxTokens - used < 8) {
          complete &&= rank === hits.length - 1;
          break;
        }
      }
      const ranked = picked.map((entry) => entry.block.metadata.messageId as string);
      options.onCollect?.({ held: false, whole: complete && ranked.length > 0 ? ranked : undefined });
      return picked.sort((a, b) => a.position - b.position).map((entry) => entry.block);
    },
  };
}

/** A recalled message's block text, its tokens and fingerprint. */
interface RecalledText {
  position: number;
  content: string;
  tokens: number;
  fingerprint: string;
}

/**
 * Recalled texts by counter and message: a recall ranks up to {@link RECALL_CANDIDATES}
 * messages every call, and a stored message is the same frozen value from call to call
 * (decision 061), so its text is formatted, counted and fingerprinted once.
 */
const recalledTexts = frozenMessageMemo<RecalledText | null>();

function recalledText(message: Message, position: number, counter: TokenCounter): RecalledText | undefined {
  const known = recalledTexts.get(counter, message);
  // `null`: the message carries nothing a recall may send, wherever it sits.
  if (known === null) return undefined;
  if (known !== undefined && known.position === position) return known;
  const body = recalledBody(message, counter);
  let text: RecalledText | null = null;
  if (body !== undefined) {
    const content = formatRecalled(message, position, body);
    text = {
      position,
      content,
      tokens: counter.countText(content),
      fingerprint: fingerprintContent(content),
    };
  }
  // Kept for frozen messages only (a stored message is; a caller's may change).
  recalledTexts.set(counter, message, text);
  return text ?? undefined;
}

/** Most tokens of a tool call or result a recall carries: as many as an earlier turn's output is shown whole with. */
const RECALLED_TOOL_TOKENS = EARLIER_TURN_MAX_TOKENS;
/** Longer than any text of {@link RECALLED_TOOL_TOKENS} tokens (a token spans at most ~16 characters). */
const RECALLED_TOOL_CHARACTERS = RECALLED_TOOL_TOKENS * 16;

/** A tool call or result as a message carries it: its line, and the input or output in it. */
export interface CarriedToolPart {
  toolName: string;
  /** `name(input)` for a call, `name → output` for a result. */
  line: string;
  /** The call's input (JSON) or the result's output, as text. */
  payload: string;
}

/**
 * What a message says, one line a part (decision 072): its text, and each tool call or result
 * as `tool(part)` gives it — `''` leaves the part out, `undefined` and the message carries
 * nothing. Undefined when there is nothing. One reading for the conversation index, the recall and
 * `search_history`, so what is found is what is shown.
 */
export function carriedBody(
  message: Message,
  tool: (part: CarriedToolPart) => string | undefined,
): string | undefined {
  if (typeof message.content === 'string') return message.content.trim() === '' ? undefined : message.content;
  const lines: string[] = [];
  for (const part of message.content) {
    let line: string | undefined;
    if (part.type === 'text') {
      if (part.text.trim() !== '') lines.push(part.text);
      continue;
    }
    if (part.type === 'tool-call') {
      const payload = toolInputText(part.input);
      line = tool({ toolName: part.toolName, line: `${part.toolName}(${payload})`, payload });
    } else if (part.type === 'tool-result') {
      const payload = toolOutputText(part.output);
      line = tool({ toolName: part.toolName, line: `${part.toolName} → ${payload}`, payload });
    } else continue;
    if (line === undefined) return undefined;
    if (line !== '') lines.push(line);
  }
  return lines.length === 0 ? undefined : lines.join('\n');
}

/**
 * The text the conversation index (and the vectors) take for a message: what it carries, a
 * tool call or result whole up to the characters a recalled one can have, a longer one left
 * out — a whole file (read, or written by a call) would be found by any of its words, and the
 * recall never shows it; a message of nothing else is found through its neighbours, as a
 * message's own words are, and gets no vector.
 */
export function indexedText(message: Message): string {
  return (
    carriedBody(message, (part) => (part.payload.length > RECALLED_TOOL_CHARACTERS ? '' : part.line)) ?? ''
  );
}

/**
 * What a recalled message carries, all of it (decision 072), or undefined — when that is
 * nothing, or when a tool call or result is longer than {@link RECALLED_TOOL_TOKENS}: a recall
 * that carried part of it would claim what it does not send, and a whole file would crowd out
 * the conversation; the tool can be called again.
 */
function recalledBody(message: Message, counter: TokenCounter): string | undefined {
  return carriedBody(message, (part) =>
    part.payload.length > RECALLED_TOOL_CHARACTERS || counter.countText(part.payload) > RECALLED_TOOL_TOKENS
      ? undefined
      : part.line,
  );
}

/** `2026-05-08 user: text` (or `#12 user: text` without a time) — what places it for the model. */
function formatRecalled(message: Message, position: number, body: string): string {
  const at = typeof message.metadata?.createdAt === 'string' ? message.metadata.createdAt : undefined;
  // The day places a recalled message (blocks come in conversation order); without one, its position.
  const where = at === undefined ? `#${position}` : at.slice(0, 10);
  return `${where} ${message.role}: ${body}`;
}

async function vectorHits(
  vectors: SessionVectors,
  query: string,
  eligible: (id: string) => boolean,
): Promise<{ id: string; score: number }[]> {
  const [vector] = await vectors.embedder.embed([query]);
  if (vector === undefined || !vector.some((value) => value !== 0)) return [];
  return vectors.index.search(vector, { limit: RECALL_CANDIDATES, filter: eligible });
}

/** Reciprocal-rank fusion of two rankings (k = 60): a message high in either ranks high. */
function fuse(
  first: readonly { id: string; score: number }[],
  second: readonly { id: string; score: number }[],
): { id: string; score: number }[] {
  const scores = new Map<string, number>();
  for (const ranking of [first, second]) {
    ranking.forEach((hit, rank) => {
      scores.set(hit.id, (scores.get(hit.id) ?? 0) + 1 / (60 + rank + 1));
    });
  }
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
}
