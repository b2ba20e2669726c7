/**
 * Writes the best `limit` of the first `count` slots by `scores[slot]` into `heap` (length ≥
 * the result), best first (ties: lower slot first), and returns how many. A bounded min-heap,
 * so a query touching every document costs O(n log limit), not a full sort; most slots lose
 * to the heap's worst at a single comparison. `heap` is caller-owned scratch (no allocation).
 */
export function topSlots(
  slots: Int32Array,
  count: number,
  scores: Float64Array,
  limit: number,
  heap: Int32Array,
): number {
  const size = Math.min(limit, count);
  if (size <= 0) return 0;
  if (size <= INSERTION_LIMIT) return insertBest(slots, count, scores, size, heap);
  // heap[0] is the worst kept slot: lowest score, then highest slot.
  let filled = 0;
  let index = 0;
  for (; index < count && filled < size; index++) {
    const slot = slots[index] as number;
    const score = scores[slot] as number;
    let at = filled++;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      const other = heap[parent] as number;
      if (!worse(score, slot, scores[other] as number, other)) break;
      heap[at] = other;
      at = parent;
    }
    heap[at] = slot;
  }
  // The heap is full: the worst kept, held in locals, turns most slots away at one comparison.
  let worstSlot = heap[0] as number;
  let worstScore = scores[worstSlot] as number;
  for (; index < count; index++) {
    const slot = slots[index] as number;
    const score = scores[slot] as number;
    if (score < worstScore || (score === worstScore && slot > worstSlot)) continue;
    siftDown(heap, size, slot, scores);
    worstSlot = heap[0] as number;
    worstScore = scores[worstSlot] as number;
  }
  // Heap sort: pop the worst into the last free place until the heap is empty.
  for (let end = size - 1; end > 0; end--) {
    const worst = heap[0] as number;
    siftDown(heap, end, heap[end] as number, scores);
    heap[end] = worst;
  }
  return size;
}

// Up to this many kept slots, a sorted prefix beats the heap: a slot that cannot make the cut
// costs one comparison with the last kept, and the few that can shift a short list (no
// sift calls, no final heap sort).
const INSERTION_LIMIT = 32;

// The best `size` (1..32, ≤ count) of `slots`, best first, kept sorted in `out` as they come.
function insertBest(
  slots: Int32Array,
  count: number,
  scores: Float64Array,
  size: number,
  out: Int32Array,
): number {
  let kept = 0;
  let lastSlot = -1;
  let lastScore = 0;
  for (let index = 0; index < count; index++) {
    const slot = slots[index] as number;
    const score = scores[slot] as number;
    if (kept === size) {
      if (score < lastScore || (score === lastScore && slot > lastSlot)) continue;
    } else kept++;
    let at = kept - 1;
    while (at > 0) {
      const other = out[at - 1] as number;
      const otherScore = scores[other] as number;
      if (otherScore > score || (otherScore === score && other < slot)) break;
      out[at] = other;
      at--;
    }
    out[at] = slot;
    lastSlot = out[kept - 1] as number;
    lastScore = scores[lastSlot] as number;
  }
  return kept;
}

function worse(score: number, slot: number, otherScore: number, other: number): boolean {
  return score < otherScore || (score === otherScore && slot > other);
}

// Puts `slot` at the root of the heap's first `size` entries and moves it down to its place.
function siftDown(heap: Int32Array, size: number, slot: number, scores: Float64Array): void {
  const score = scores[slot] as number;
  let at = 0;
  for (;;) {
    const left = 2 * at + 1;
    if (left >= size) break;
    let child = left;
    let childSlot = heap[left] as number;
    let childScore = scores[childSlot] as number;
    const right = left + 1;
    if (right < size) {
      const rightSlot = heap[right] as number;
      const rightScore = scores[rightSlot] as number;
      if (worse(rightScore, rightSlot, childScore, childSlot)) {
        child = right;
        childSlot = rightSlot;
        childScore = rightScore;
      }
    }
    if (!worse(childScore, childSlot, score, slot)) break;
    heap[at] = childSlot;
    at = child;
  }
  heap[at] = slot;
}
