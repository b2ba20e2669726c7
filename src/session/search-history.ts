import { conversationMessages } from '../core/conversation-messages.ts';
import { type ArtifactHandleStore, type Message, OPEN_ARTIFACT_DEFINITION } from '../core/index.ts';
import { pairSafeEnd } from '../core/surrogates.ts';
import { createConversationIndex } from '../retrieval/index.ts';
import { foldCurationEvents } from '../workspace/index.ts';
import type { HistoryHit } from './chat-tools.ts';
import { carriedBody, indexedText, SEARCH_HISTORY_TOOL, type SessionIndexes } from './session-recall.ts';
import type { SessionStore } from './session-store.ts';

/** Characters of a message a `search_history` hit shows (a longer one says how to read it whole). */
const HIT_CHARACTERS = 1200;

/**
 * Reciprocal rank fusion's constant: the two rankings (the stored conversation's, the turn's
 * steps') come from indexes of very different sizes, whose BM25 scores do not compare.
 */
const FUSION_K = 60;
/** Less than any gap between two ranks' fused scores: a tie-break, not a boost. */
const STEP_EDGE = 1e-9;

/** A hit's fused score at 0-based `rank`. */
const fused = (rank: number): number => 1 / (FUSION_K + rank + 1);

/** A session engine's `search_history` search (see {@link createHistorySearch}). */
export type HistorySearch = (
  sessionId: string,
  query: string,
  limit: number,
  artifacts?: ArtifactHandleStore,
  steps?: readonly Message[],
) => Promise<HistoryHit[]>;

/**
 * `search_history`: the session's conversation index over every message (curated ones left
 * out), and the turn's `steps` so far — not stored yet, so a step a call dropped for lack of
 * room is found too (decision 070, fifth amendment) —, best first by their lexical scores. A
 * hit's text is what the message says (decision 072's reading: text, tool calls and results);
 * a message longer than {@link HIT_CHARACTERS} shows its start, and with the turn's `artifacts`
 * store the whole text is put there and the hit says how `open_artifact` reads it page by page
 * (decision 073) — so every message behind the cut can be read whole.
 */
export function createHistorySearch(store: SessionStore, indexes: SessionIndexes): HistorySearch {
  return async (sessionId, query, limit, artifacts, steps = []) => {
    const state = await store.load(sessionId);
    const conversation = conversationMessages(state.messages);
    const index = indexes.sync(sessionId, conversation);
    const curated = foldCurationEvents(state.curation);
    const found: { message: Message; position: number; score: number }[] = [];
    const positions = new Map(conversation.map((message, position) => [message.id, position] as const));
    const hits = index.lexical.search(query, { limit, filter: (id) => !curated.has(id) });
    for (const [rank, hit] of hits.entries()) {
      const position = positions.get(hit.id);
      const message = position === undefined ? undefined : conversation[position];
      if (message !== undefined && position !== undefined)
        found.push({ message, position, score: fused(rank) });
    }
    if (steps.length > 0) {
      // The turn's steps come after the stored conversation (its query is stored first).
      const turn = createConversationIndex({ name: 'steps', indexContext: 3 });
      turn.append(steps.map((message) => ({ id: message.id, text: indexedText(message) })));
      const at = new Map(steps.map((message, position) => [message.id, position] as const));
      for (const [rank, hit] of turn.lexical.search(query, { limit }).entries()) {
        const position = at.get(hit.id);
        const message = position === undefined ? undefined : steps[position];
        // At equal rank a step of the turn goes first: it is what this turn can no longer see.
        if (message !== undefined && position !== undefined)
          found.push({ message, position: conversation.length + position, score: fused(rank) + STEP_EDGE });
      }
      found.sort((a, b) => b.score - a.score);
    }
    return found.slice(0, limit).map(({ message, position }) => historyHit(message, position, artifacts));
  };
}

/** One hit: the message at `position` (0-based), only its start when it is long. */
function historyHit(message: Message, position: number, artifacts?: ArtifactHandleStore): HistoryHit {
  const createdAt = message.metadata?.createdAt;
  const text = carriedBody(message, (part) => part.line) ?? '';
  let shown = text;
  let more: string | undefined;
  if (text.length > HIT_CHARACTERS) {
    const end = pairSafeEnd(text, HIT_CHARACTERS);
    shown = text.slice(0, end);
    const length = `${text.length} characters in all, the first ${end} shown`;
    if (artifacts === undefined) more = length;
    else {
      const { handle } = artifacts.put({ content: text, toolName: SEARCH_HISTORY_TOOL });
      more = `${length} — call ${OPEN_ARTIFACT_DEFINITION.name} with {"handle":"${handle}"} to read it whole, page by page`;
    }
  }
  return {
    position: position + 1,
    id: message.id,
    role: message.role,
    ...(typeof createdAt === 'string' ? { createdAt } : {}),
    text: shown,
    ...(more === undefined ? {} : { more }),
  };
}
