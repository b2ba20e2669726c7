import { type CollectRequest, type ContextSource, createBlock } from '../core/index.ts';
import { fitBlocks } from './fit-blocks.ts';

/** What is known about the user. */
export interface UserProfile {
  name?: string;
  /** BCP 47 language tag the user writes in, e.g. `zh-CN`. */
  locale?: string;
  /** Stable preferences: "answers in Chinese", "no code comments". */
  preferences?: readonly string[];
  /** Facts: "studies distributed systems", "uses PostgreSQL 16". */
  facts?: readonly string[];
}

/** Options of {@link createUserSource}. */
export interface UserSourceOptions {
  /** The profile, read on every collect (may come from a file or a database). */
  profile: (request: CollectRequest) => UserProfile | undefined | Promise<UserProfile | undefined>;
  /** Budget key; default `user`. */
  name?: string;
  /** Default `knowledge__context`; pass `profile__context` to send it before the history (a stable layer, decision 071). */
  layer?: string;
  /** 0..1, default 0.85. */
  priority?: number;
}

/**
 * Seed 001's `user` source. Reads the user's profile — name, locale, preferences, facts —
 * through a callback and fills `knowledge__context` with a header block (name, locale,
 * priority 0.95), a preferences block (0.9) and a facts block (0.7), dropping the lower ones
 * first when the budget is short. Returns nothing for an unknown user.
 */
export function createUserSource(options: UserSourceOptions): ContextSource {
  const name = options.name ?? 'user';
  const layer = options.layer ?? 'knowledge__context';
  return {
    name,
    layer,
    priority: options.priority ?? 0.85,
    async collect(request, budget) {
      const profile = await options.profile(request);
      if (profile === undefined) return [];
      const parts: Array<[string, string, number]> = [];
      const header = [
        profile.name === undefined ? '' : `User: ${profile.name}`,
        profile.locale === undefined ? '' : `Language: ${profile.locale}`,
      ]
        .filter((line) => line.length > 0)
        .join('\n');
      if (header.length > 0) parts.push(['header', header, 0.95]);
      if ((profile.preferences ?? []).length > 0) {
        parts.push([
          'preferences',
          `User preferences:\n${(profile.preferences ?? []).map((line) => `- ${line}`).join('\n')}`,
          0.9,
        ]);
      }
      if ((profile.facts ?? []).length > 0) {
        parts.push([
          'facts',
          `About the user:\n${(profile.facts ?? []).map((line) => `- ${line}`).join('\n')}`,
          0.7,
        ]);
      }
      const blocks = parts.map(([id, content, priority]) =>
        createBlock(
          { id: `${name}:${id}`, layer, source: name, content, priority, metadata: { part: id } },
          request.counter,
        ),
      );
      return fitBlocks(blocks, budget.maxTokens);
    },
  };
}
