import { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync } from 'node:zlib';
import { CtxloomError } from '../core/index.ts';

/**
 * One encoding's tokens in rank order, as read from its vocabulary file: every token's bytes
 * in one buffer, and its text where those bytes are valid UTF-8.
 */
export interface Vocabulary {
  /** All token bytes, concatenated in rank order. */
  readonly bytes: Uint8Array;
  /** Token `rank` is `bytes[starts[rank]] … bytes[starts[rank + 1]]` (empty: no token). */
  readonly starts: Int32Array;
  /** The token's text, or `undefined` when its bytes are not valid UTF-8 (or it is a hole). */
  readonly texts: readonly (string | undefined)[];
}

/** Version in the header of the files this reader understands. */
export const VOCABULARY_FORMAT_VERSION = 1;

/**
 * The vocabulary file of an encoding: `vocab/<encoding>.tokens.br` at the package root,
 * written at build time by `scripts/write-vocabularies.mjs` (from `src/tokenizers/` and
 * `dist/tokenizers/` alike, both two levels down).
 */
export function vocabularyFileOf(encoding: string): URL {
  return new URL(`../../vocab/${encoding}.tokens.br`, import.meta.url);
}

/**
 * Reads and decompresses the vocabulary of `encoding` (synchronously, ~1 MB of brotli for
 * o200k). Throws `not-found` when the file is missing (a checkout whose `prepare` did not run:
 * `npm run build:vocab` writes it) and `parse-error` when it is not a vocabulary of
 * `encoding`.
 */
export function readVocabularyFile(encoding: string, file: URL = vocabularyFileOf(encoding)): Vocabulary {
  const path = fileURLToPath(file);
  let compressed: Buffer;
  try {
    compressed = readFileSync(file);
  } catch (error) {
    throw new CtxloomError({
      code: 'not-found',
      message: `the ${encoding} vocabulary file is missing; in a checkout of ctxloom, \`npm run build:vocab\` writes it`,
      file: path,
      cause: error,
    });
  }
  let data: Buffer;
  try {
    data = brotliDecompressSync(compressed);
  } catch (error) {
    throw new CtxloomError({
      code: 'parse-error',
      message: 'not brotli-compressed',
      file: path,
      cause: error,
    });
  }
  return parseVocabulary(encoding, data, path);
}

/**
 * Parses a decompressed vocabulary: the header line
 * `ctxloom-vocab <version> <encoding> <rank count>`, then per rank one length byte (0 = no
 * token) and that many token bytes.
 */
export function parseVocabulary(encoding: string, data: Buffer, file: string): Vocabulary {
  const newline = data.indexOf(10);
  const header = data.toString('latin1', 0, Math.max(newline, 0)).split(' ');
  const rankCount = Number(header[3]);
  if (
    newline < 0 ||
    header[0] !== 'ctxloom-vocab' ||
    header[1] !== String(VOCABULARY_FORMAT_VERSION) ||
    header[2] !== encoding ||
    !Number.isSafeInteger(rankCount) ||
    rankCount < 0 ||
    rankCount > data.length - newline - 1
  ) {
    throw new CtxloomError({
      code: 'parse-error',
      message: `expected the header "ctxloom-vocab ${VOCABULARY_FORMAT_VERSION} ${encoding} <rank count>"`,
      file,
      line: 1,
    });
  }
  const bytes = new Uint8Array(data.length - newline - 1 - rankCount);
  const starts = new Int32Array(rankCount + 1);
  // UTF-16 length of each token's text, −1 when its bytes are not valid UTF-8. The valid
  // tokens are decoded in one call and sliced: a decode per token took 5× longer.
  const textLengths = new Int32Array(rankCount);
  const textBytes = Buffer.allocUnsafe(bytes.length);
  let textWritten = 0;
  let read = newline + 1;
  let written = 0;
  for (let rank = 0; rank < rankCount; rank++) {
    const length = data[read] ?? -1;
    const start = read + 1;
    const end = start + length;
    // A rank count larger than the records would otherwise overflow `bytes`.
    if (length < 0 || end > data.length || written + length > bytes.length) {
      throw new CtxloomError({
        code: 'parse-error',
        message: `the file ends inside rank ${rank} of ${rankCount}`,
        file,
        path: `ranks[${rank}]`,
      });
    }
    starts[rank] = written;
    const textLength = length === 0 ? -1 : utf16LengthOf(data, start, end);
    textLengths[rank] = textLength;
    // Byte loops: tokens average 7 bytes, and a subarray view per token costs more.
    for (let index = start; index < end; index++) bytes[written++] = data[index] as number;
    if (textLength >= 0)
      for (let index = start; index < end; index++) textBytes[textWritten++] = data[index] as number;
    read = end;
  }
  starts[rankCount] = written;
  if (read !== data.length) {
    throw new CtxloomError({
      code: 'parse-error',
      message: `${data.length - read} bytes after the last of ${rankCount} ranks`,
      file,
    });
  }
  const allTexts = textBytes.toString('utf8', 0, textWritten);
  const texts: (string | undefined)[] = new Array(rankCount);
  for (let rank = 0, offset = 0; rank < rankCount; rank++) {
    const textLength = textLengths[rank] as number;
    if (textLength < 0) continue;
    texts[rank] = allTexts.slice(offset, offset + textLength);
    offset += textLength;
  }
  return { bytes: bytes.subarray(0, written), starts, texts };
}

/**
 * The number of UTF-16 code units `bytes[start, end)` decodes to, or −1 when they are not
 * well-formed UTF-8 (overlong forms, surrogates, code points over U+10FFFF and truncated
 * sequences are rejected, as `isUtf8` and a fatal `TextDecoder` do).
 */
export function utf16LengthOf(bytes: Uint8Array, start: number, end: number): number {
  let units = 0;
  let index = start;
  while (index < end) {
    const lead = bytes[index] as number;
    if (lead < 0x80) {
      index += 1;
      units += 1;
      continue;
    }
    let continuation: number;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) continuation = 1;
    else if (lead >= 0xe0 && lead <= 0xef) {
      continuation = 2;
      if (lead === 0xe0) low = 0xa0;
      else if (lead === 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      continuation = 3;
      if (lead === 0xf0) low = 0x90;
      else if (lead === 0xf4) high = 0x8f;
    } else return -1;
    if (index + continuation >= end) return -1;
    const second = bytes[index + 1] as number;
    if (second < low || second > high) return -1;
    for (let offset = 2; offset <= continuation; offset++) {
      const next = bytes[index + offset] as number;
      if (next < 0x80 || next > 0xbf) return -1;
    }
    index += continuation + 1;
    units += continuation === 3 ? 2 : 1;
  }
  return units;
}
