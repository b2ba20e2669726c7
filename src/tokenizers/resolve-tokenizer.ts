import type { EncodingName } from './encodings.ts';

/** Which counter a model gets: an exact encoding or the estimator. */
export type TokenizerKind = EncodingName | 'estimate';

/** The model family a name was recognised as. */
export type ModelFamily =
  | 'openai-o200k'
  | 'openai-cl100k'
  | 'anthropic'
  | 'qwen'
  | 'deepseek'
  | 'google'
  | 'unknown';

/** What {@link resolveTokenizer} decided, and why. */
export interface TokenizerResolution {
  /** The model name without a provider prefix, lower-cased. */
  model: string;
  family: ModelFamily;
  tokenizer: TokenizerKind;
  /** One sentence on why this tokenizer was chosen (shown in reports and docs). */
  reason: string;
}

interface Rule {
  pattern: RegExp;
  family: ModelFamily;
  tokenizer: TokenizerKind;
  reason: string;
}

// First match wins; gpt-4o / gpt-4.1 must come before the gpt-4 rule.
const RULES: readonly Rule[] = [
  {
    pattern: /^(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|o1|o3|o4)(\b|[-.:_])/,
    family: 'openai-o200k',
    tokenizer: 'o200k_base',
    reason: 'OpenAI documents o200k_base for gpt-4o, gpt-4.1, gpt-5 and the o-series.',
  },
  {
    pattern: /^(gpt-4|gpt-3\.5|gpt-35|text-embedding-3|text-embedding-ada-002)(\b|[-.:_])/,
    family: 'openai-cl100k',
    tokenizer: 'cl100k_base',
    reason: 'OpenAI documents cl100k_base for gpt-3.5-turbo, gpt-4 and gpt-4-turbo.',
  },
  {
    pattern: /^(claude|anthropic)/,
    family: 'anthropic',
    tokenizer: 'estimate',
    reason: "Anthropic publishes no tokenizer for Claude 3+; the estimator approximates o200k's counts.",
  },
  {
    pattern: /^(qwen|qwq)/,
    family: 'qwen',
    tokenizer: 'estimate',
    reason: "Qwen's BPE vocabulary is not bundled; the estimator approximates o200k's counts.",
  },
  {
    pattern: /^deepseek/,
    family: 'deepseek',
    tokenizer: 'estimate',
    reason: "DeepSeek's BPE vocabulary is not bundled; the estimator approximates o200k's counts.",
  },
  {
    pattern: /^(gemini|gemma)/,
    family: 'google',
    tokenizer: 'estimate',
    reason: "Gemini's SentencePiece vocabulary is not public; the estimator approximates o200k's counts.",
  },
];

/**
 * Decides which tokenizer counts for `model`. Accepts bare names (`gpt-4o-mini`) and provider
 * prefixes (`openai:gpt-4o`, `openai/gpt-4.1`, `azure:gpt-4`); case-insensitive.
 *
 * - gpt-4o, gpt-4.1, gpt-4.5, gpt-5*, gpt-oss, o1*, o3*, o4* → exact `o200k_base`;
 * - gpt-3.5*, gpt-4 and gpt-4-turbo (not 4o / 4.1) → exact `cl100k_base`;
 * - claude*, qwen*, deepseek*, gemini* / gemma*, and anything unknown → the CJK-aware estimator.
 *
 * @example
 * resolveTokenizer('openai:gpt-4o').tokenizer; // 'o200k_base'
 * resolveTokenizer('claude-sonnet-4-5').tokenizer; // 'estimate'
 */
export function resolveTokenizer(model: string): TokenizerResolution {
  const normalized = stripProvider(model.trim().toLowerCase());
  for (const rule of RULES) {
    if (rule.pattern.test(normalized)) {
      return { model: normalized, family: rule.family, tokenizer: rule.tokenizer, reason: rule.reason };
    }
  }
  return {
    model: normalized,
    family: 'unknown',
    tokenizer: 'estimate',
    reason: 'Unknown model; the estimator approximates o200k and leans toward over-counting.',
  };
}

function stripProvider(model: string): string {
  const separator = model.search(/[:/]/);
  return separator === -1 ? model : model.slice(separator + 1).replace(/^.*\//, '');
}
