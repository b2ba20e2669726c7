import { CtxloomError } from '../core/index.ts';

/** Format version written by {@link VectorIndex.toJSON}. */
export const VECTOR_FORMAT_VERSION = 1;

/** One vector hit: id and cosine similarity in −1..1. */
export interface VectorHit {
  id: string;
  score: number;
}

/** The saved form: ids and all vectors as one base64 little-endian Float32 buffer. */
export interface SerializedVectorIndex {
  version: typeof VECTOR_FORMAT_VERSION;
  dimensions: number;
  ids: string[];
  vectors: string;
}

/**
 * Exact cosine search over L2-normalised `Float32Array`s in one contiguous buffer (a scan is
 * a tight dot-product loop: ~100k × 384-d vectors in tens of milliseconds). Incremental
 * add/replace/remove (swap-remove), versioned saved form.
 */
export interface VectorIndex {
  readonly dimensions: number;
  readonly size: number;
  /** Adds or replaces; throws `invalid-argument` for a wrong length or a zero/non-finite vector. */
  add(id: string, vector: ArrayLike<number>): void;
  remove(id: string): boolean;
  has(id: string): boolean;
  /** Best `limit` (default 20) hits with score ≥ `minScore` (default −1). */
  search(
    vector: ArrayLike<number>,
    options?: { limit?: number; minScore?: number; filter?: (id: string) => boolean },
  ): VectorHit[];
  toJSON(): SerializedVectorIndex;
}

/** Creates an empty {@link VectorIndex} of `dimensions` (integer ≥ 1). */
export function createVectorIndex(options: { dimensions: number }): VectorIndex {
  const dimensions = options.dimensions;
  if (!Number.isInteger(dimensions) || dimensions < 1) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: 'dimensions must be an integer ≥ 1',
      path: 'dimensions',
    });
  }
  let buffer = new Float32Array(dimensions * 16);
  const ids: string[] = [];
  const rows = new Map<string, number>();

  const normalise = (vector: ArrayLike<number>, path: string): Float32Array => {
    if (vector.length !== dimensions) {
      throw new CtxloomError({
        code: 'invalid-argument',
        message: `vector has ${vector.length} dimensions, expected ${dimensions}`,
        path,
      });
    }
    let norm = 0;
    for (let index = 0; index < dimensions; index++) {
      const value = vector[index] as number;
      norm += value * value;
    }
    norm = Math.sqrt(norm);
    if (!(norm > 0) || !Number.isFinite(norm)) {
      throw new CtxloomError({
        code: 'invalid-argument',
        message: 'vector must be finite and non-zero',
        path,
      });
    }
    const unit = new Float32Array(dimensions);
    for (let index = 0; index < dimensions; index++) unit[index] = (vector[index] as number) / norm;
    return unit;
  };

  const index: VectorIndex = {
    dimensions,
    get size() {
      return ids.length;
    },
    add(id, vector) {
      const unit = normalise(vector, id);
      let row = rows.get(id);
      if (row === undefined) {
        row = ids.length;
        if ((row + 1) * dimensions > buffer.length) {
          const grown = new Float32Array(buffer.length * 2);
          grown.set(buffer);
          buffer = grown;
        }
        ids.push(id);
        rows.set(id, row);
      }
      buffer.set(unit, row * dimensions);
    },
    remove(id) {
      const row = rows.get(id);
      if (row === undefined) return false;
      const last = ids.length - 1;
      if (row !== last) {
        buffer.copyWithin(row * dimensions, last * dimensions, (last + 1) * dimensions);
        const moved = ids[last] as string;
        ids[row] = moved;
        rows.set(moved, row);
      }
      ids.pop();
      rows.delete(id);
      return true;
    },
    has: (id) => rows.has(id),
    search(vector, searchOptions = {}) {
      const limit = searchOptions.limit ?? 20;
      const minScore = searchOptions.minScore ?? -1;
      if (ids.length === 0 || limit <= 0) return [];
      const query = normalise(vector, 'query');
      const data = buffer;
      const filter = searchOptions.filter;
      // Bounded min-heap of (score, row) keeps the best `limit` without sorting every row.
      const heapScores: number[] = [];
      const heapRows: number[] = [];
      const count = ids.length;
      for (let row = 0; row < count; row++) {
        if (filter !== undefined && !filter(ids[row] as string)) continue;
        let dot = 0;
        const offset = row * dimensions;
        for (let column = 0; column < dimensions; column++)
          dot += (query[column] as number) * (data[offset + column] as number);
        // Float32 normalisation can put a cosine a hair outside [−1, 1] (exactly opposite
        // vectors gave −1.0000001 and fell below the default `minScore`); clamp it.
        if (dot > 1) dot = 1;
        else if (dot < -1) dot = -1;
        if (dot < minScore) continue;
        if (heapScores.length < limit) {
          heapScores.push(dot);
          heapRows.push(row);
          siftUp(heapScores, heapRows, heapScores.length - 1);
        } else if (dot > (heapScores[0] as number)) {
          heapScores[0] = dot;
          heapRows[0] = row;
          siftDown(heapScores, heapRows, 0);
        }
      }
      return heapRows
        .map((row, position) => ({ id: ids[row] as string, score: heapScores[position] as number, row }))
        .sort((left, right) => right.score - left.score || left.row - right.row)
        .map(({ id, score }) => ({ id, score }));
    },
    toJSON() {
      const used = buffer.slice(0, ids.length * dimensions);
      return {
        version: VECTOR_FORMAT_VERSION,
        dimensions,
        ids: [...ids],
        vectors: Buffer.from(used.buffer, used.byteOffset, used.byteLength).toString('base64'),
      };
    },
  };
  return index;
}

/** Restores a {@link VectorIndex}; `parse-error` for another version or a buffer of the wrong size. */
export function loadVectorIndex(data: unknown): VectorIndex {
  const saved = data as Partial<SerializedVectorIndex> | null;
  if (saved === null || typeof saved !== 'object' || saved.version !== VECTOR_FORMAT_VERSION) {
    throw new CtxloomError({
      code: 'parse-error',
      message: `unsupported vector index format (expected version ${VECTOR_FORMAT_VERSION})`,
      path: 'version',
    });
  }
  if (
    typeof saved.dimensions !== 'number' ||
    !Array.isArray(saved.ids) ||
    typeof saved.vectors !== 'string'
  ) {
    throw new CtxloomError({ code: 'parse-error', message: 'malformed vector index', path: 'vectors' });
  }
  const bytes = Buffer.from(saved.vectors, 'base64');
  if (bytes.byteLength !== saved.ids.length * saved.dimensions * 4) {
    throw new CtxloomError({
      code: 'parse-error',
      message: 'vector buffer size does not match ids × dimensions',
      path: 'vectors',
    });
  }
  const floats = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  const dimensions = saved.dimensions;
  const index = createVectorIndex({ dimensions });
  saved.ids.forEach((id, row) => {
    index.add(String(id), floats.subarray(row * dimensions, (row + 1) * dimensions));
  });
  return index;
}

function siftUp(scores: number[], rows: number[], start: number): void {
  let index = start;
  while (index > 0) {
    const parent = (index - 1) >> 1;
    if ((scores[parent] as number) <= (scores[index] as number)) return;
    swap(scores, rows, index, parent);
    index = parent;
  }
}

function siftDown(scores: number[], rows: number[], start: number): void {
  let index = start;
  for (;;) {
    const left = 2 * index + 1;
    const right = left + 1;
    let smallest = index;
    if (left < scores.length && (scores[left] as number) < (scores[smallest] as number)) smallest = left;
    if (right < scores.length && (scores[right] as number) < (scores[smallest] as number)) smallest = right;
    if (smallest === index) return;
    swap(scores, rows, index, smallest);
    index = smallest;
  }
}

function swap(scores: number[], rows: number[], left: number, right: number): void {
  const score = scores[left] as number;
  scores[left] = scores[right] as number;
  scores[right] = score;
  const row = rows[left] as number;
  rows[left] = rows[right] as number;
  rows[right] = row;
}
