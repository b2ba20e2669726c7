import { type DictionaryKind, STATIC_DICTIONARY, withStaticPrefix } from './record-codec.ts';

/** Bytes of a path's history a record is deflated against: all of DEFLATE's window. */
export const CHAIN_HISTORY_BYTES = 32 * 1024;
/** Format 2–3 records: bytes of a chain's recent values they were deflated against. */
export const CHAIN_VALUES_BYTES = 24 * 1024;
/** Format 2–3 records: bytes of a chain's recent headers they were deflated against. */
const CHAIN_HEADERS_BYTES = 6 * 1024;

/**
 * A chain's text. A node holds only its own parts and links to its parent's node (back to the
 * chain's first, self-contained record), so decoding many rows keeps no copy of the window
 * per row. `bodies` is the path's history, as a record of format 5 is deflated against it
 * ({@link dictionaryOf} `history`): the static dictionary, then each record's body and the
 * writes its child saw, in order — one window for everything, 18 % fewer bytes than the two
 * windows of formats 2–3 (decision 038). `values` and `headers` are those two windows'
 * streams (stored values; ids, headers and metadata), kept to read records stored before.
 */
export interface ChainText {
  readonly parent: ChainText | undefined;
  readonly values: readonly Uint8Array[];
  readonly headers: readonly Uint8Array[];
  readonly bodies: readonly Uint8Array[];
}

/** The one buffer {@link dictionaryOf} writes into. */
const scratch = Buffer.allocUnsafe(
  Math.max(CHAIN_HISTORY_BYTES, STATIC_DICTIONARY.byteLength + CHAIN_VALUES_BYTES + CHAIN_HEADERS_BYTES),
);

/**
 * The dictionary of a chain text for records of `kind` (`history`: the last
 * {@link CHAIN_HISTORY_BYTES} of the static dictionary followed by the path's bodies;
 * `windows`: the static dictionary, the last values, the last headers). It is written into
 * one buffer shared by every call (a cold read builds two per row; allocating them was most
 * of its time and of its garbage): **valid until the next call** — pass it straight to the
 * codec, which copies it.
 */
export function dictionaryOf(text: ChainText, kind: DictionaryKind = 'history'): Uint8Array {
  if (kind === 'history') return historyOf(text);
  scratch.set(STATIC_DICTIONARY, 0);
  const values = lastParts(text, (node) => node.values, CHAIN_VALUES_BYTES);
  const headers = lastParts(text, (node) => node.headers, CHAIN_HEADERS_BYTES);
  let offset = STATIC_DICTIONARY.byteLength;
  for (const part of [values, headers]) offset = place(part, offset);
  return withStaticPrefix(scratch.subarray(0, offset));
}

/** The last {@link CHAIN_HISTORY_BYTES} of the static dictionary followed by the path's bodies. */
function historyOf(text: ChainText): Uint8Array {
  const { parts, bytes } = lastParts(text, (node) => node.bodies, CHAIN_HISTORY_BYTES);
  const fromStatic = Math.min(STATIC_DICTIONARY.byteLength, CHAIN_HISTORY_BYTES - bytes);
  scratch.set(STATIC_DICTIONARY.subarray(STATIC_DICTIONARY.byteLength - fromStatic), 0);
  return withStaticPrefix(scratch.subarray(0, place({ parts, bytes }, fromStatic)));
}

/**
 * Writes the last `bytes` of `parts` (newest first; the oldest may be cut at its start) into
 * the scratch buffer from `offset`, oldest first; returns where they end.
 */
function place(last: { parts: readonly Uint8Array[]; bytes: number }, offset: number): number {
  let end = offset + last.bytes;
  for (const part of last.parts) {
    const take = Math.min(part.byteLength, end - offset);
    scratch.set(take === part.byteLength ? part : part.subarray(part.byteLength - take), end - take);
    end -= take;
  }
  return offset + last.bytes;
}

/** Appends to a chain text (no copy). */
export function extendChain(
  text: ChainText | undefined,
  values: Uint8Array[],
  headers: Uint8Array[],
  bodies: Uint8Array[],
): ChainText {
  return { parent: text, values, headers, bodies };
}

/** The newest parts of one stream, newest first, and how many of their last bytes make `limit`. */
function lastParts(
  text: ChainText,
  stream: (node: ChainText) => readonly Uint8Array[],
  limit: number,
): { parts: Uint8Array[]; bytes: number } {
  const parts: Uint8Array[] = [];
  let total = 0;
  for (let node: ChainText | undefined = text; node !== undefined && total < limit; node = node.parent) {
    const own = stream(node);
    for (let index = own.length - 1; index >= 0 && total < limit; index -= 1) {
      const part = own[index] as Uint8Array;
      parts.push(part);
      total += part.byteLength;
    }
  }
  return { parts, bytes: Math.min(total, limit) };
}
