/** Maps a sequence of keys to values, reusing the runs an earlier call computed (see {@link createRunMemo}). */
export interface RunMemo<K extends object, V> {
  /**
   * The value of each key, in order. A run of keys that an earlier call saw in the same order
   * (from a marked start on) is copied from it while `valid` accepts each reused value;
   * every other key is `compute`d. `startsRun(index)` marks where a later call may pick a run
   * up (besides the start of every reused run): where the sequence's parts begin.
   */
  map(input: {
    keys: readonly K[];
    compute: (key: K, index: number) => V;
    /**
     * Whether the reused `value` still holds at `index`; `saved` is the number `numbers` had
     * at the value's place in the call that made the run (NaN without `numbers`), so a check
     * may compare numbers kept side by side instead of reading each value.
     */
    valid: (value: V, index: number, saved: number) => boolean;
    /** Numbers kept with the run, aligned with `keys` (copied: the caller may change them). */
    numbers?: readonly number[];
    startsRun: (index: number) => boolean;
    /**
     * The caller never changes `keys` (`keys: true`) or the returned values (`values: true`)
     * afterwards: the memo keeps them as they are instead of copies. Default: copies.
     */
    unshared?: { keys?: boolean; values?: boolean };
  }): V[];
  /**
   * Keeps `values`, computed by the caller for `keys`, as one run from `keys[0]` — what `map`
   * keeps after computing every key (and counts them as computed). Both arrays are kept as
   * they are: the caller never changes them afterwards.
   */
  remember(keys: readonly K[], values: readonly V[]): void;
  /** Keys computed (not reused) since the memo was made: tests read it to see what was reused. */
  readonly computed: number;
}

interface Run<K, V> {
  keys: readonly K[];
  values: readonly V[];
  numbers: readonly number[] | undefined;
  offset: number;
}

/**
 * A memo for per-item work over sequences that mostly repeat (the history of every step of a
 * tool loop): one lookup per run instead of one per item, then pointer comparisons. The memo
 * keeps its own copies of the last sequences (unless told they are never changed), so callers
 * may change what they passed and what it returns.
 */
export function createRunMemo<K extends object, V>(): RunMemo<K, V> {
  const starts = new WeakMap<K, Run<K, V>>();
  let computed = 0;
  return {
    get computed() {
      return computed;
    },
    remember(keys, values) {
      const first = keys[0];
      if (first === undefined) return;
      starts.set(first, { keys, values, numbers: undefined, offset: 0 });
      computed += keys.length;
    },
    map({ keys, compute, valid, startsRun, unshared, numbers }) {
      const count = keys.length;
      const values = new Array<V>(count);
      const marks: number[] = [];
      let index = 0;
      while (index < count) {
        const key = keys[index] as K;
        const run = starts.get(key);
        if (run !== undefined) {
          let from = run.offset;
          let at = index;
          const saved = run.numbers;
          while (
            at < count &&
            from < run.keys.length &&
            run.keys[from] === keys[at] &&
            valid(run.values[from] as V, at, saved === undefined ? Number.NaN : (saved[from] as number))
          ) {
            values[at++] = run.values[from++] as V;
          }
          if (at > index) {
            marks.push(index);
            index = at;
            continue;
          }
        }
        if (index === 0 || startsRun(index)) marks.push(index);
        values[index] = compute(key, index);
        computed++;
        index++;
      }
      if (marks.length > 0) {
        const saved = {
          keys: unshared?.keys === true ? keys : keys.slice(),
          values: unshared?.values === true ? values : values.slice(),
          numbers: numbers?.slice(),
        };
        for (const at of marks) starts.set(keys[at] as K, { ...saved, offset: at });
      }
      return values;
    },
  };
}
