import { fingerprintContent } from '../core/fingerprint.ts';
import { CtxloomError } from '../core/index.ts';
import type { Analyzer } from './analyzer.ts';
import { type Bm25Index, type Bm25Slots, bm25Slots, createBm25Index } from './bm25-index.ts';
import type { RetrievalCandidate } from './candidate.ts';
import { registerFreshRecall } from './fresh-recall.ts';
import { beginRecall, createTermSpace, endRecall, noteRecalled } from './passage-terms.ts';
import type { RecallRequest, RecallSource } from './recall-source.ts';

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
   * How many times a turn's own text is repeated in its indexed text, so a turn outranks a
   * neighbour that merely borders the matching words. Default 2, integer 1..5.
   */
  ownTextWeight?: number;
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
  /**
   * Appends entries in conversation order (an existing id is replaced in place). An entry's id,
   * text and metadata are read when it is appended: to change a turn, append it again.
   */
  append(entries: readonly ConversationEntry[]): void;
  remove(id: string): boolean;
  /** Entries in conversation order. */
  entries(): ConversationEntry[];
  /** The candidate for an indexed turn with the given recall score (undefined when absent). */
  candidate(
    id: string,
    vectorScore: number,
    view?: { name?: string; messageRange?: number },
  ): RetrievalCandidate | undefined;
  /** Another view of the same index with its own name and `messageRange`. */
  recallSource(options: { name?: string; messageRange?: number }): RecallSource;
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
  const ownTextWeight = options.ownTextWeight ?? 2;
  if (!Number.isInteger(ownTextWeight) || ownTextWeight < 1 || ownTextWeight > 5) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: 'ownTextWeight must be an integer within 1..5',
      path: 'ownTextWeight',
    });
  }
  const lexical = createBm25Index(options.analyzer === undefined ? {} : { analyzer: options.analyzer });
  const slots = bm25Slots(lexical) as Bm25Slots;
  const order: ConversationEntry[] = [];
  const positions = new Map<string, number>();
  // Position of the turn in each slot of the lexical index (-1: none), so a hit finds its turn
  // without a lookup by id.
  let positionBySlot = new Int32Array(64).fill(-1);
  const placeInSlot = (id: string, position: number): void => {
    const slot = slots.slotOf(id);
    if (slot < 0) return;
    if (slot >= positionBySlot.length) {
      const grown = new Int32Array(Math.max(slot + 1, positionBySlot.length * 2)).fill(-1);
      grown.set(positionBySlot);
      positionBySlot = grown;
    }
    positionBySlot[slot] = position;
  };
  // What each entry's own text gives a recall, by position (filled on its first recall): the
  // offset of its term ids in the term space's pool (-1: not yet known), its fingerprint and that
  // fingerprint's number. Typed arrays and a packed list, not a record per turn: a recall reads
  // 20 turns' facts, and 20 records scattered over the heap cost a cache miss each.
  let factIds = new Int32Array(64).fill(-1);
  let factNumbers = new Int32Array(64);
  const factFingerprints: string[] = [];
  // Each entry's id, text and metadata by position, as packed lists: a recall reads them for 20
  // turns without loading the 20 entry objects.
  const entryIds: string[] = [];
  const entryTexts: string[] = [];
  const entryMetadata: Array<Record<string, unknown> | undefined> = [];
  // Room for the facts of every position (unknown for the new ones).
  const growFacts = (): void => {
    if (order.length > factIds.length) {
      const ids = new Int32Array(Math.max(order.length, factIds.length * 2)).fill(-1);
      ids.set(factIds);
      factIds = ids;
      const numbers = new Int32Array(ids.length);
      numbers.set(factNumbers);
      factNumbers = numbers;
    }
    while (factFingerprints.length < order.length) factFingerprints.push('');
  };
  // A small number per distinct fingerprint: a recall tells the retriever whether its
  // candidates repeat a fingerprint from stamps over these numbers, so the reranker need not
  // compare fingerprints.
  const fingerprintNumbers = new Map<string, number>();
  let stamps = new Int32Array(64);
  let stamp = 0;
  let lastDistinct = false;
  const numberOf = (fingerprint: string): number => {
    let number = fingerprintNumbers.get(fingerprint);
    if (number === undefined) {
      number = fingerprintNumbers.size;
      fingerprintNumbers.set(fingerprint, number);
      if (number >= stamps.length) {
        const grown = new Int32Array(stamps.length * 2);
        grown.set(stamps);
        stamps = grown;
      }
    }
    return number;
  };
  // The term ids let the reranker's query-overlap signal count a recalled turn's query terms
  // without analysing or looking up its text (passage-terms.ts).
  const space = createTermSpace(lexical.analyzer);
  // Fingerprints of recalled contents, computed once per distinct content (hashing dominated
  // recall time otherwise); bounded FIFO.
  const fingerprints = new Map<string, string>();
  const fingerprintOf = (content: string): string => {
    let fingerprint = fingerprints.get(content);
    if (fingerprint === undefined) {
      fingerprint = fingerprintContent(content);
      if (fingerprints.size >= 8192) fingerprints.delete(fingerprints.keys().next().value as string);
      fingerprints.set(content, fingerprint);
    }
    return fingerprint;
  };

  const window = (position: number, radius: number): string => {
    const parts: string[] = [];
    for (
      let index = Math.max(0, position - radius);
      index <= Math.min(order.length - 1, position + radius);
      index++
    ) {
      parts.push(entryTexts[index] as string);
    }
    return parts.join('\n');
  };
  // Each turn is analysed once; a turn's indexed document is the sum of its neighbours' term
  // frequencies plus its own times ownTextWeight (the same terms as analysing the joined text,
  // since no term spans a line break).
  const analysed = new Map<string, Map<string, number>>();
  const termsOf = (entry: ConversationEntry): Map<string, number> => {
    let frequencies = analysed.get(entry.id);
    if (frequencies === undefined) {
      frequencies = new Map();
      for (const term of lexical.analyzer.analyze(entry.text))
        frequencies.set(term, (frequencies.get(term) ?? 0) + 1);
      analysed.set(entry.id, frequencies);
    }
    return frequencies;
  };
  const reindex = (from: number, to: number): void => {
    for (let position = Math.max(0, from); position <= Math.min(order.length - 1, to); position++) {
      const merged = new Map<string, number>();
      const last = Math.min(order.length - 1, position + indexContext);
      for (let index = Math.max(0, position - indexContext); index <= last; index++) {
        const weight = index === position ? ownTextWeight : 1;
        for (const [term, frequency] of termsOf(order[index] as ConversationEntry)) {
          merged.set(term, (merged.get(term) ?? 0) + weight * frequency);
        }
      }
      const id = (order[position] as ConversationEntry).id;
      lexical.addFrequencies(id, merged);
      placeInSlot(id, position);
    }
  };

  // Fills the facts of the turn at `position` if not yet known.
  const knowFacts = (position: number): void => {
    if ((factIds[position] as number) >= 0) return;
    const entry = order[position] as ConversationEntry;
    const fingerprint = fingerprintOf(entryTexts[position] as string);
    factFingerprints[position] = fingerprint;
    factNumbers[position] = numberOf(fingerprint);
    factIds[position] = space.idsOf(termsOf(entry).keys());
  };
  // Forgets a turn's facts (its text changed, or it is gone). When most of the term space's pool
  // is then unused, every turn's facts are forgotten and the pool starts anew: a turn's facts
  // are recomputed on its next recall.
  const forgetFacts = (position: number): void => {
    const ids = factIds[position] as number;
    if (ids < 0) return;
    factIds[position] = -1;
    space.release(ids);
    if (space.wasteful) {
      factIds.fill(-1);
      space.clearPool();
    }
  };
  const toCandidate = (
    id: string,
    vectorScore: number,
    origin: string,
    range: number,
  ): RetrievalCandidate | undefined => {
    const position = positions.get(id);
    if (position === undefined) return undefined;
    if (range === 0) {
      const text = entryTexts[position] as string;
      knowFacts(position);
      return candidateAt(position, vectorScore, origin, text, factFingerprints[position] as string, false);
    }
    const content = window(position, range);
    return candidateAt(position, vectorScore, origin, content, fingerprintOf(content), false);
  };
  const candidateAt = (
    position: number,
    vectorScore: number,
    origin: string,
    content: string,
    fingerprint: string,
    ranked: boolean,
  ): RetrievalCandidate => {
    const id = entryIds[position] as string;
    const metadata = entryMetadata[position];
    if (ranked) {
      // The ranked shape, for the retriever's in-place rerank (fresh-recall.ts).
      return {
        id,
        origin,
        content,
        vectorScore,
        fingerprint,
        metadata: metadata === undefined ? { position } : { ...metadata, position },
        finalScore: 0,
        signals: NO_SIGNALS,
      } as RetrievalCandidate;
    }
    return {
      id,
      origin,
      content,
      vectorScore,
      fingerprint,
      // Spreading `undefined` takes the runtime's slow path; most turns carry no metadata.
      metadata: metadata === undefined ? { position } : { ...metadata, position },
    };
  };

  // The recall, synchronous (fresh-recall.ts: the retriever calls it without the promise).
  const recallNow = (
    request: RecallRequest,
    origin: string,
    range: number,
    rankedShape: boolean,
  ): RetrievalCandidate[] => {
    const count = slots.search(request.query, request.limit);
    const candidates: RetrievalCandidate[] = [];
    // Without a message range a candidate's fingerprint is its turn's, numbered once.
    lastDistinct = range === 0;
    if (count === 0) return candidates;
    if (stamp === 0x7fffffff) {
      stamps.fill(0);
      stamp = 0;
    }
    stamp++;
    // A turn's own text is its content only without a message range.
    if (range === 0) beginRecall(candidates, space);
    addCandidates(candidates, count, origin, range, rankedShape);
    if (range === 0) endRecall(space.pool);
    return candidates;
  };
  // The candidates of the last search's `count` hits, in rank order, into `candidates` (a
  // function of its own: its loop reaches V8's optimising tier long before the whole recall).
  const addCandidates = (
    candidates: RetrievalCandidate[],
    count: number,
    origin: string,
    range: number,
    rankedShape: boolean,
  ): void => {
    const ranked = slots.lastSlots();
    const scores = slots.lastScores();
    const ids = slots.ids;
    const best = scores[0] as number;
    for (let rank = 0; rank < count; rank++) {
      const slot = ranked[rank] as number;
      const id = ids[slot] as string;
      let position = slot < positionBySlot.length ? (positionBySlot[slot] as number) : -1;
      // The lexical index is public: a document put there directly is found by id, if at all.
      if (position < 0 || entryIds[position] !== id) position = positions.get(id) ?? -1;
      if (position < 0) continue;
      const vectorScore = (scores[rank] as number) / best;
      if (range === 0) {
        // A turn's own text: its fingerprint, number and term ids are known after its first recall.
        const text = entryTexts[position] as string;
        knowFacts(position);
        const fingerprint = factFingerprints[position] as string;
        candidates.push(candidateAt(position, vectorScore, origin, text, fingerprint, rankedShape));
        noteRecalled(text, factIds[position] as number);
        const number = factNumbers[position] as number;
        if (stamps[number] === stamp) lastDistinct = false;
        stamps[number] = stamp;
      } else {
        const content = window(position, range);
        candidates.push(
          candidateAt(position, vectorScore, origin, content, fingerprintOf(content), rankedShape),
        );
      }
    }
  };
  const distinct = (): boolean => lastDistinct;
  const recallWith = async (
    request: RecallRequest,
    origin: string,
    range: number,
  ): Promise<RetrievalCandidate[]> => recallNow(request, origin, range, false);

  const index: ConversationIndex = {
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
          analysed.delete(entry.id);
          order[existing] = entry;
          entryIds[existing] = entry.id;
          entryTexts[existing] = entry.text;
          entryMetadata[existing] = entry.metadata;
          forgetFacts(existing);
          reindex(existing - indexContext, existing + indexContext);
          continue;
        }
        positions.set(entry.id, order.length);
        order.push(entry);
        entryIds.push(entry.id);
        entryTexts.push(entry.text);
        entryMetadata.push(entry.metadata);
        growFacts();
      }
      reindex(start - indexContext, order.length - 1);
    },
    remove(id) {
      const position = positions.get(id);
      if (position === undefined) return false;
      const slot = slots.slotOf(id);
      if (slot >= 0 && slot < positionBySlot.length) positionBySlot[slot] = -1;
      order.splice(position, 1);
      entryIds.splice(position, 1);
      entryTexts.splice(position, 1);
      entryMetadata.splice(position, 1);
      forgetFacts(position);
      factIds.copyWithin(position, position + 1);
      factIds[factIds.length - 1] = -1;
      factNumbers.copyWithin(position, position + 1);
      factFingerprints.splice(position, 1);
      lexical.remove(id);
      analysed.delete(id);
      positions.clear();
      for (const [index, entry] of order.entries()) positions.set(entry.id, index);
      for (let index = position; index < order.length; index++)
        placeInSlot((order[index] as ConversationEntry).id, index);
      reindex(position - indexContext, position + indexContext - 1);
      return true;
    },
    entries: () => [...order],
    recall: (request) => recallWith(request, name, messageRange),
    candidate: (id, vectorScore, view = {}) =>
      toCandidate(
        id,
        vectorScore,
        view.name ?? name,
        checkWindow(view.messageRange ?? messageRange, 'messageRange'),
      ),
    recallSource: (view) => {
      const viewName = view.name ?? name;
      const viewRange = checkWindow(view.messageRange ?? messageRange, 'messageRange');
      const source: RecallSource = {
        name: viewName,
        recall: (request) => recallWith(request, viewName, viewRange),
      };
      registerFreshRecall(
        source,
        (request, ranked) => recallNow(request, viewName, viewRange, ranked),
        distinct,
      );
      return source;
    },
  };
  registerFreshRecall(index, (request, ranked) => recallNow(request, name, messageRange, ranked), distinct);
  return index;
}

// The `signals` placeholder of a candidate made in the ranked shape (always overwritten).
const NO_SIGNALS: Record<string, number> = Object.freeze({});

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
