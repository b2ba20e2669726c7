import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import {
  type CachedTokenCounter,
  createTokenCounter,
  OPENAI_MESSAGE_OVERHEAD,
  withTokenCache,
} from '../../core/index.ts';

const noSpecialTokens = { disallowedSpecial: new Set<string>() };

/**
 * The counter used when a compile is given none: exact `o200k_base` (GPT-4o / o-series) BPE
 * from `gpt-tokenizer`, special-token text counted as plain text, behind the core token cache
 * so a warm recompile only tokenises new text.
 */
export function createDefaultCounter(): CachedTokenCounter {
  return withTokenCache(
    createTokenCounter({
      name: 'o200k_base',
      exact: true,
      countText: (text) => countTokens(text, noSpecialTokens),
      overhead: OPENAI_MESSAGE_OVERHEAD,
    }),
  );
}
