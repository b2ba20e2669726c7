import { CtxloomError, type Message } from '../core/index.ts';
import { messageParts, partText } from '../core/message.ts';
import type { Analyzer } from '../retrieval/analyzer.ts';
import { type ConversationIndex, createConversationIndex } from '../retrieval/conversation-index.ts';
import { type ImportanceScorer, scoreImportance } from './importance-scorer.ts';
import type { MemoryEntry } from './memory-entry.ts';
import type { MemoryVectors } from './memory-vectors.ts';
import type { MemoryView } from './memory-view.ts';

/** Options every memory store takes, whatever it persists to. */
export interface MemoryCoreOptions {
  agentId: string;
  sessionId: string;
  /** Default {@link scoreImportance}. */
  scorer?: ImportanceScorer;
  /** L2 threshold, default 0.6, range 0..1. */
  importantThreshold?: number;
  /** L1 size in messages, default 40, ≥ 1. */
  recentLimit?: number;
  analyzer?: Analyzer;
  /** Neighbouring messages indexed with each (see `createConversationIndex`), default 1. */
  indexContext?: number;
  /** Clock in ms; default `Date.now`. */
  now?: () => number;
}

/** The in-memory side of a memory store: the entries, the L4 index, and the read view. */
export interface MemoryCore {
  view: MemoryView;
  /** Entries `messages` would add (ids already stored or repeated are skipped); stores nothing. */
  plan(messages: readonly Message[]): MemoryEntry[];
  /** Takes entries the store has persisted into memory and the index. */
  commit(added: readonly MemoryEntry[]): void;
  /** The importance and reasons `mark(id, important)` sets; `not-found` for an unknown id. */
  planMark(id: string, important: boolean): { importance: number; reasons: MemoryEntry['reasons'] };
  /** Applies a persisted mark. */
  commitMark(id: string, mark: { importance: number; reasons: MemoryEntry['reasons'] }): void;
}

/** Checks the options shared by every memory store (`invalid-argument` naming the field). */
export function validateMemoryOptions(options: MemoryCoreOptions): void {
  const threshold = options.importantThreshold ?? 0.6;
  const recentLimit = options.recentLimit ?? 40;
  if (!(threshold >= 0 && threshold <= 1)) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: 'importantThreshold must be within 0..1',
      path: 'importantThreshold',
    });
  }
  if (!Number.isInteger(recentLimit) || recentLimit < 1) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: 'recentLimit must be an integer ≥ 1',
      path: 'recentLimit',
    });
  }
}

/**
 * The tiers over a conversation held in memory, shared by the SQLite and PostgreSQL stores:
 * L1 = the latest `recentLimit` entries; L2 = entries scored ≥ `importantThreshold` or
 * marked; L4 = a lexical conversation index over every entry, hybrid with `vectors`.
 */
export function createMemoryCore(
  options: MemoryCoreOptions & { entries: MemoryEntry[]; vectors?: MemoryVectors | undefined },
): MemoryCore {
  validateMemoryOptions(options);
  const threshold = options.importantThreshold ?? 0.6;
  const recentLimit = options.recentLimit ?? 40;
  const { agentId, sessionId, vectors } = options;
  const scorer = options.scorer ?? scoreImportance;
  const now = options.now ?? Date.now;
  const entries = options.entries;
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  const index: ConversationIndex = createConversationIndex({
    ...(options.analyzer === undefined ? {} : { analyzer: options.analyzer }),
    indexContext: options.indexContext ?? 1,
  });
  index.append(entries.map(toConversationEntry));

  const view: MemoryView = {
    agentId,
    sessionId,
    recent(request = {}) {
      const limit = request.limit ?? recentLimit;
      return limit <= 0 ? [] : entries.slice(-limit).map(copy);
    },
    important(request = {}) {
      const important = entries
        .filter((entry) => entry.importance >= threshold)
        .sort((left, right) => right.importance - left.importance || right.seq - left.seq);
      return (request.limit === undefined ? important : important.slice(0, request.limit)).map(copy);
    },
    entries: () => entries.map(copy),
    recallSource(request = {}) {
      const lexical = index.recallSource(request);
      if (vectors === undefined) return lexical;
      return {
        name: lexical.name,
        async recall(recall) {
          await vectors.ensure(entries, recall.signal);
          const scores = new Map<string, number>();
          for (const candidate of await lexical.recall(recall))
            scores.set(candidate.id, candidate.vectorScore / 2);
          for (const hit of await vectors.search(recall.query, recall.limit, recall.signal)) {
            scores.set(hit.id, (scores.get(hit.id) ?? 0) + Math.min(1, Math.max(0, hit.score)) / 2);
          }
          return [...scores]
            .sort((left, right) => right[1] - left[1])
            .slice(0, recall.limit)
            .flatMap(([id, score]) => index.candidate(id, score, { name: lexical.name, ...request }) ?? []);
        },
      };
    },
  };

  return {
    view,
    plan(messages) {
      const planned: MemoryEntry[] = [];
      const seen = new Set<string>();
      for (const message of messages) {
        if (byId.has(message.id) || seen.has(message.id)) continue;
        seen.add(message.id);
        const { score, reasons } = scorer(message);
        planned.push({
          id: message.id,
          agentId,
          sessionId,
          seq: entries.length + planned.length,
          message,
          text: entryText(message),
          importance: score,
          reasons,
          createdAt: now(),
        });
      }
      return planned;
    },
    commit(added) {
      for (const entry of added) {
        entries.push(entry);
        byId.set(entry.id, entry);
      }
      index.append(added.map(toConversationEntry));
    },
    planMark(id, important) {
      const entry = byId.get(id);
      if (entry === undefined)
        throw new CtxloomError({ code: 'not-found', message: `no memory entry "${id}"`, path: id });
      const scored = scorer(entry.message);
      return important
        ? { importance: 1, reasons: ['marked', ...scored.reasons] }
        : { importance: scored.score, reasons: scored.reasons };
    },
    commitMark(id, mark) {
      const entry = byId.get(id);
      if (entry === undefined) return;
      entry.importance = mark.importance;
      entry.reasons = mark.reasons;
    },
  };
}

/** `role: text` with tool calls and results rendered, the text L4 indexes. */
export function entryText(message: Message): string {
  const body = messageParts(message).map(partText).join('\n');
  return `${message.name ?? message.role}: ${body}`;
}

function toConversationEntry(entry: MemoryEntry) {
  return {
    id: entry.id,
    text: entry.text,
    metadata: { messageId: entry.id, role: entry.message.role, seq: entry.seq },
  };
}

function copy(entry: MemoryEntry): MemoryEntry {
  return { ...entry, reasons: [...entry.reasons] };
}
