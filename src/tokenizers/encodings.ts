import { type BpeTables, createBpeTables } from './bpe-tables.ts';
import { readVocabularyFile } from './vocabulary-file.ts';

/** The exact encodings ctxloom ships. */
export type EncodingName = 'o200k_base' | 'cl100k_base';

/** Every {@link EncodingName}, in registry order. */
export const ENCODING_NAMES: readonly EncodingName[] = ['o200k_base', 'cl100k_base'];

// The pre-tokeniser patterns OpenAI publishes in tiktoken (tiktoken_ext/openai_public.py,
// MIT), written as JavaScript regexes the way gpt-tokenizer 4.0 writes them
// (src/encodingParams/constants.ts, MIT): tiktoken's case-insensitive contraction group
// `(?i:'s|'t|'re|'ve|'m|'ll|'d)` spelled out with character classes. encodings.test.ts checks
// that both equal gpt-tokenizer's.
const CONTRACTION = "'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE])";
const CL100K_SPLIT = String.raw`${CONTRACTION}|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s+$|\s*[\r\n]|\s+(?!\S)|\s`;
const O200K_SPLIT = [
  String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?:${CONTRACTION})?`,
  String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?:${CONTRACTION})?`,
  String.raw`\p{N}{1,3}`,
  String.raw` ?[^\s\p{L}\p{N}]+[\r\n/]*`,
  String.raw`\s*[\r\n]+`,
  String.raw`\s+(?!\S)`,
  String.raw`\s+`,
].join('|');
const SPLIT_PATTERNS: Record<EncodingName, RegExp> = {
  o200k_base: new RegExp(O200K_SPLIT, 'gu'),
  cl100k_base: new RegExp(CL100K_SPLIT, 'gu'),
};
const loaded = new Map<EncodingName, BpeTables>();

/** The pre-tokeniser regex of an encoding (tiktoken's, global and unicode). */
export function splitPatternOf(encoding: EncodingName): RegExp {
  return SPLIT_PATTERNS[encoding];
}

/**
 * Loads an encoding's vocabulary on first use and keeps it for the process: the
 * encoding's own file in `vocab/` only (o200k never loads cl100k), turned into
 * {@link BpeTables}. Synchronous, so counters stay synchronous; the first call costs
 * ~0.3–1 s of CPU for o200k, mostly building the pair table.
 */
export function loadEncodingTables(encoding: EncodingName): BpeTables {
  const cached = loaded.get(encoding);
  if (cached !== undefined) return cached;
  const tables = createBpeTables(readVocabularyFile(encoding));
  loaded.set(encoding, tables);
  return tables;
}

/** True when the encoding's vocabulary is already in memory (for tests of lazy loading). */
export function isEncodingLoaded(encoding: EncodingName): boolean {
  return loaded.has(encoding);
}
