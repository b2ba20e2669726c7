import type { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync } from 'node:zlib';
import { CtxloomError } from '../core/index.ts';

/**
 * One encoding's tokens in rank order, as read from its vocabulary file: every token's bytes
 * in one buffer (texts are looked up by their UTF-8 bytes, `BpeTables.isToken`).
 */
export interface Vocabulary {
  /** All token bytes, concatenated in rank order. */
  readonly bytes: Uint8Array;
  /** Token `rank` is `bytes[starts[rank]] … bytes[starts[rank + 1]]` (empty: no token). */
  readonly starts: Int32Array;
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
    // A byte loop: tokens average 7 bytes, and a subarray view per token costs more.
    for (let index = start; index < end; index++) bytes[written++] = data[index] as number;
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
  return { bytes: bytes.subarray(0, written), starts };
}
