import { CtxloomError, fingerprintContent } from '../core/index.ts';
import type { Analyzer } from './analyzer.ts';
import { type Bm25Index, createBm25Index } from './bm25-index.ts';
import type { RetrievalCandidate } from './candidate.ts';
import type { RecallSource } from './recall-source.ts';

/** One conversation turn (or any ordered entry) as indexed. */
export interface ConversationEntry {
  id: string;
  /** Text as shown to the model, e.g. `Caroline: I went to the support group.` */
  text: string;
  metadata?: Record<string, unknown>;
}

/** Options of {@link createConversationIndex}. */
export interface ConversationIndexOptions {
  /** Recall source name and candidate origin; default `memory`. */
  name?: string;
  analyzer?: Analyzer;
  /**
   * Turns on each side indexed together with a turn (its searchable text, not its content):
   * an answer is found by the words of the question before it. Default 1, integer 0..10.
   */
  indexContext?: number;
  /**
   * Turns on each side added to a hit's content when recalled (like Mastra's `messageRange`),
   * joined by newlines in conversation order. Default 0, integer 0..10.
   */
  messageRange?: number;
}

/** An ordered, lexically indexed conversation that is also a {@link RecallSource}. */
export interface ConversationIndex extends RecallSource {
  readonly size: number;
  readonly lexical: Bm25Index;
  /** Appends entries in conversation order (an existing id is replaced in place). */
  append(entries: readonly ConversationEntry[]): void;
  remove(id: string): boolean;
  /** Entries in conversation order. */
  entries(): ConversationEntry[];
}

/**
 * Creates a conversation index (the memory L4 lexical index). Each turn is indexed with
 * `indexContext` neighbours on each side; appending re-indexes only the turns whose
 * neighbourhood changed. Recall gives `vectorScore = BM25 / best BM25` (the offline default
 * documented in docs/retrieval.md).
 * @example
 * const index = createConversationIndex();
 * index.append([{ id: 'D1:1', text: 'Caroline: I went to a support group.' }]);
 * await index.recall({ query: 'support group', limit: 20 });
 */
export function createConversationIndex(options: ConversationIndexOptions = {}): ConversationIndex {
  const name = options.name ?? 'memory';
  const indexContext = checkWindow(options.indexContext ?? 1, 'indexContext');
  const messageRange = checkWindow(options.messageRange ?? 0, 'messageRange');
  const lexical = createBm25Index(options.analyzer === undefined ? {} : { analyzer: options.analyzer });
  const order: ConversationEntry[] = [];
  const positions = new Map<string, number>();

  const window = (position: number, radius: number): string => {
    const parts: string[] = [];
    for (
      let index = Math.max(0, position - radius);
      index <= Math.min(order.length - 1, position + radius);
      index++
    ) {
      parts.push((order[index] as ConversationEntry).text);
    }
    return parts.join('\n');
  };
  const reindex = (from: number, to: number): void => {
    for (let position = Math.max(0, from); position <= Math.min(order.length - 1, to); position++) {
      lexical.add((order[position] as ConversationEntry).id, window(position, indexContext));
    }
  };

  return {
    name,
    lexical,
    get size() {
      return order.length;
    },
    append(entries) {
      const start = order.length;
      for (const entry of entries) {
        const existing = positions.get(entry.id);
        if (existing !== undefined) {
          order[existing] = entry;
          reindex(existing - indexContext, existing + indexContext);
          continue;
        }
        positions.set(entry.id, order.length);
        order.push(entry);
      }
      reindex(start - indexContext, order.length - 1);
    },
    remove(id) {
      const position = positions.get(id);
      if (position === undefined) return false;
      order.splice(position, 1);
      lexical.remove(id);
      positions.clear();
      for (const [index, entry] of order.entries()) positions.set(entry.id, index);
      reindex(position - indexContext, position + indexContext - 1);
      return true;
    },
    entries: () => [...order],
    async recall(request) {
      const hits = lexical.search(request.query, { limit: request.limit });
      const best = hits[0]?.score ?? 1;
      return hits.map((hit): RetrievalCandidate => {
        const position = positions.get(hit.id) ?? 0;
        const entry = order[position] as ConversationEntry;
        const content = messageRange === 0 ? entry.text : window(position, messageRange);
        return {
          id: hit.id,
          origin: name,
          content,
          vectorScore: hit.score / best,
          fingerprint: fingerprintContent(content),
          metadata: { ...entry.metadata, position },
        };
      });
    },
  };
}

function checkWindow(value: number, path: string): number {
  if (!Number.isInteger(value) || value < 0 || value > 10) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `${path} must be an integer within 0..10`,
      path,
    });
  }
  return value;
}
