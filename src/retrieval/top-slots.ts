/**
 * The best `limit` slots by `scores[slot]`, best first (ties: lower slot first), kept in a
 * bounded min-heap so a query touching every document costs O(n log limit), not a full sort.
 */
export function topSlots(slots: readonly number[], scores: Float64Array, limit: number): number[] {
  const worse = (left: number, right: number): boolean => {
    const difference = (scores[left] as number) - (scores[right] as number);
    return difference < 0 || (difference === 0 && left > right);
  };
  const heap: number[] = [];
  const siftDown = (start: number): void => {
    let index = start;
    for (;;) {
      const left = 2 * index + 1;
      const right = left + 1;
      let smallest = index;
      if (left < heap.length && worse(heap[left] as number, heap[smallest] as number)) smallest = left;
      if (right < heap.length && worse(heap[right] as number, heap[smallest] as number)) smallest = right;
      if (smallest === index) return;
      const swap = heap[index] as number;
      heap[index] = heap[smallest] as number;
      heap[smallest] = swap;
      index = smallest;
    }
  };
  for (const slot of slots) {
    if (heap.length < limit) {
      heap.push(slot);
      let index = heap.length - 1;
      while (index > 0) {
        const parent = (index - 1) >> 1;
        if (!worse(heap[index] as number, heap[parent] as number)) break;
        const swap = heap[index] as number;
        heap[index] = heap[parent] as number;
        heap[parent] = swap;
        index = parent;
      }
    } else if (worse(heap[0] as number, slot)) {
      heap[0] = slot;
      siftDown(0);
    }
  }
  return heap.sort((left, right) => (worse(left, right) ? 1 : worse(right, left) ? -1 : 0));
}
