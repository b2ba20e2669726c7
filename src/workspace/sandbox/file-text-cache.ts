/** Most bytes the cache holds, over every sandbox of the process (text and bytes, ≈ 3× this). */
export const FILE_TEXT_CACHE_BYTES = 16 * 1024 * 1024;

/** Files smaller than this are decoded every time (decoding them costs less than keeping them). */
const SMALLEST_CACHED_BYTES = 4096;

interface Entry {
  bytes: Uint8Array;
  text: string;
}

/**
 * The decoded text of files whose bytes were read or written before, checked byte for byte.
 * A session's record is read several times a turn and grows with the session; decoding it
 * again (UTF-8 validation included) made a turn's cost grow with the session's length
 * (decision 061). Comparing the bytes just read with the bytes last seen is a `memcmp`, a small
 * part of decoding, and never wrong: the cache hands back a string only for identical bytes,
 * whoever wrote the file (another process, an editor) and however fast.
 *
 * What the same text also gives: the same string object, so a caller that parsed it can keep
 * the result for as long as the string it gets back is the one it parsed (`messages.json`).
 * Least recently used entries leave first once {@link FILE_TEXT_CACHE_BYTES} is reached; a
 * file larger than a quarter of it is never kept.
 */
export class FileTextCache {
  readonly #entries = new Map<string, Entry>();
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(maxBytes = FILE_TEXT_CACHE_BYTES) {
    this.#maxBytes = Math.max(0, maxBytes);
  }

  /** The text last seen for `real` when its bytes were exactly `bytes`. */
  get(real: string, bytes: Uint8Array): string | undefined {
    const entry = this.#entries.get(real);
    if (entry === undefined) return undefined;
    if (!Buffer.from(entry.bytes.buffer, entry.bytes.byteOffset, entry.bytes.byteLength).equals(bytes)) {
      this.#remove(real, entry);
      return undefined;
    }
    this.#entries.delete(real);
    this.#entries.set(real, entry);
    return entry.text;
  }

  /** Remembers that `bytes` at `real` decode to `text`. */
  set(real: string, bytes: Uint8Array, text: string): void {
    const current = this.#entries.get(real);
    if (current !== undefined) this.#remove(real, current);
    if (bytes.byteLength < SMALLEST_CACHED_BYTES || bytes.byteLength > this.#maxBytes / 4) return;
    this.#entries.set(real, { bytes, text });
    this.#bytes += bytes.byteLength;
    for (const [key, entry] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#remove(key, entry);
    }
  }

  #remove(real: string, entry: Entry): void {
    this.#entries.delete(real);
    this.#bytes -= entry.bytes.byteLength;
  }
}

/** The process's one cache, shared by every sandbox. */
export const fileTexts = new FileTextCache();
