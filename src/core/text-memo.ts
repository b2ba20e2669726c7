/**
 * Values computed from texts, remembered by text and bounded by how many texts and how many
 * characters it holds: cleared whole when the next text would pass either bound (a text seen
 * again is then computed once more). For texts that come back as the same strings call after
 * call (a source's blocks), whose hash the engine keeps with the string.
 */
export interface TextMemo<V> {
  /** The value of `text`, computed by `compute` unless remembered. */
  get(text: string, compute: (text: string) => V): V;
}

/** A {@link TextMemo} holding at most `maxTexts` texts of `maxCharacters` characters in all. */
export function createTextMemo<V>(limits: { maxTexts: number; maxCharacters: number }): TextMemo<V> {
  const values = new Map<string, V>();
  let characters = 0;
  return {
    get(text, compute) {
      let value = values.get(text);
      if (value === undefined) {
        value = compute(text);
        if (values.size >= limits.maxTexts || characters + text.length > limits.maxCharacters) {
          values.clear();
          characters = 0;
        }
        values.set(text, value);
        characters += text.length;
      }
      return value;
    },
  };
}
