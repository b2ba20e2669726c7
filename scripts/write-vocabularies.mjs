#!/usr/bin/env node
// Writes the two exact vocabularies ctxloom ships, vocab/o200k_base.tokens.br and
// vocab/cl100k_base.tokens.br, from the rank lists of the `gpt-tokenizer` dev dependency
// (`npm run build:vocab`, part of `prepare`; decision 029). The format, read by
// src/tokenizers/vocabulary-file.ts:
//
//   brotli( "ctxloom-vocab 1 <encoding> <rank count>\n"  then, for each rank in order,
//           one byte n (1–255; 0 marks a rank with no token) and the token's n bytes )
//
// Tokens whose bytes are valid UTF-8 are stored as their UTF-8 encoding, the others as the
// bytes gpt-tokenizer lists. src/tokenizers/vocabulary-file.test.ts checks the files against
// gpt-tokenizer token by token.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { brotliCompressSync, constants } from 'node:zlib';

const VOCABULARY_FORMAT_VERSION = 1; // = VOCABULARY_FORMAT_VERSION in vocabulary-file.ts
const ENCODINGS = ['o200k_base', 'cl100k_base'];
// Quality 9 is within 6 % of quality 11's size (874 vs 828 KB for o200k) at a tenth of the
// build time; decompression costs the same.
const BROTLI_QUALITY = 9;

const require = createRequire(import.meta.url);
const directory = new URL('../vocab/', import.meta.url);
mkdirSync(directory, { recursive: true });
const utf8 = new TextEncoder();

for (const encoding of ENCODINGS) {
  const module = require(`gpt-tokenizer/bpeRanks/${encoding}`);
  const ranks = module.default ?? module;
  if (!Array.isArray(ranks)) throw new Error(`gpt-tokenizer's ${encoding} rank list is not an array`);
  const header = utf8.encode(`ctxloom-vocab ${VOCABULARY_FORMAT_VERSION} ${encoding} ${ranks.length}\n`);
  const body = new Uint8Array(header.length + ranks.length * 256);
  body.set(header);
  let offset = header.length;
  for (let rank = 0; rank < ranks.length; rank++) {
    const value = ranks[rank];
    const bytes =
      value === undefined
        ? new Uint8Array(0)
        : typeof value === 'string'
          ? utf8.encode(value)
          : Uint8Array.from(value);
    if (bytes.length > 255)
      throw new Error(`${encoding} rank ${rank} has ${bytes.length} bytes (the format holds 255)`);
    body[offset] = bytes.length;
    body.set(bytes, offset + 1);
    offset += 1 + bytes.length;
  }
  const raw = body.subarray(0, offset);
  const compressed = brotliCompressSync(raw, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
      [constants.BROTLI_PARAM_LGWIN]: 24,
      [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
    },
  });
  const file = new URL(`${encoding}.tokens.br`, directory);
  writeFileSync(file, compressed);
  console.log(
    `wrote vocab/${encoding}.tokens.br: ${ranks.length} ranks, ${raw.length} bytes, ${compressed.length} compressed`,
  );
}
