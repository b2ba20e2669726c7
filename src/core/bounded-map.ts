/**
 * A map that keeps its most recently used entries within a count and a total weight (a text's
 * length, a content's): setting past either bound evicts the least recently used first. An
 * entry heavier than the whole bound is still kept, alone, until the next set.
 */
export class BoundedMap<K, V> {
  readonly #entries = new Map<K, { value: V; weight: number }>();
  readonly #maxEntries: number;
  readonly #maxWeight: number;
  #weight = 0;

  constructor(maxEntries: number, maxWeight: number) {
    this.#maxEntries = maxEntries;
    this.#maxWeight = maxWeight;
  }

  /** The value of `key`, which becomes the most recently used. */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** The value of `key`, its place in the eviction order unchanged. */
  peek(key: K): V | undefined {
    return this.#entries.get(key)?.value;
  }

  /** Keeps `value` under `key` as the most recently used, evicting the least recently used to fit. */
  set(key: K, value: V, weight: number): void {
    const known = this.#entries.get(key);
    if (known !== undefined) {
      this.#entries.delete(key);
      this.#weight -= known.weight;
    }
    for (const [oldest, entry] of this.#entries) {
      if (this.#entries.size < this.#maxEntries && this.#weight + weight <= this.#maxWeight) break;
      this.#entries.delete(oldest);
      this.#weight -= entry.weight;
    }
    this.#entries.set(key, { value, weight });
    this.#weight += weight;
  }

  /** Forgets `key`. */
  delete(key: K): void {
    const known = this.#entries.get(key);
    if (known === undefined) return;
    this.#entries.delete(key);
    this.#weight -= known.weight;
  }

  /** Forgets every entry. */
  clear(): void {
    this.#entries.clear();
    this.#weight = 0;
  }

  /** The weights of the entries held, together. */
  get weight(): number {
    return this.#weight;
  }

  get size(): number {
    return this.#entries.size;
  }
}
