import { createRequire } from 'node:module';
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { CtxloomError } from '../core/index.ts';
import { type BpeTables, createBpeTables } from './bpe-tables.ts';

/** The exact encodings ctxloom ships. */
export type EncodingName = 'o200k_base' | 'cl100k_base';

/** Every {@link EncodingName}, in registry order. */
export const ENCODING_NAMES: readonly EncodingName[] = ['o200k_base', 'cl100k_base'];

const require = createRequire(import.meta.url);
const RANK_MODULES: Record<EncodingName, string> = {
  o200k_base: 'gpt-tokenizer/bpeRanks/o200k_base',
  cl100k_base: 'gpt-tokenizer/bpeRanks/cl100k_base',
};
const SPLIT_PATTERNS: Record<EncodingName, RegExp> = {
  o200k_base: O200K_TOKEN_SPLIT_REGEX,
  cl100k_base: CL100K_TOKEN_SPLIT_REGEX,
};
const loaded = new Map<EncodingName, BpeTables>();

/**
 * The pre-tokeniser regex of an encoding (from `gpt-tokenizer`, identical to tiktoken's).
 */
export function splitPatternOf(encoding: EncodingName): RegExp {
  return SPLIT_PATTERNS[encoding];
}

/**
 * Loads an encoding's vocabulary on first use and keeps it for the process: `gpt-tokenizer`'s
 * rank list for that encoding only (o200k never loads cl100k), turned into {@link BpeTables}.
 * Synchronous, so counters stay synchronous; the first call costs ~0.3–1 s for o200k.
 */
export function loadEncodingTables(encoding: EncodingName): BpeTables {
  const cached = loaded.get(encoding);
  if (cached !== undefined) return cached;
  const module: unknown = require(RANK_MODULES[encoding]);
  const ranks = (module as { default?: unknown }).default ?? module;
  if (!Array.isArray(ranks)) {
    throw new CtxloomError({
      code: 'unsupported',
      message: `gpt-tokenizer's ${encoding} rank list has an unexpected shape`,
      path: RANK_MODULES[encoding],
    });
  }
  const tables = createBpeTables(ranks);
  loaded.set(encoding, tables);
  return tables;
}

/** True when the encoding's vocabulary is already in memory (for tests of lazy loading). */
export function isEncodingLoaded(encoding: EncodingName): boolean {
  return loaded.has(encoding);
}
