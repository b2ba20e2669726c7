import type { ContextBlock, ContextSource, TokenCounter } from '../../core/index.ts';
import type { LoadedSession } from './load-session.ts';
import { resolveSources } from './resolve-sources.ts';
import { selectInjections } from './select-injections.ts';
import { selectProfileBlocks } from './select-profile-blocks.ts';
import { buildRetrievalDocuments, createWorkspaceRetrievalSource } from './workspace-retrieval.ts';

/**
 * What a session's manifest adds to every call made in the session, apart from the history:
 * the global and session prompts, the profile blocks and injections (pinned blocks), and the
 * retrieval source. An agent of a process session compiles them with its own prompt and
 * Blackboard layers, as a chat turn compiles them with the conversation.
 */
export interface SessionLayers {
  /** Global and session prompts joined, in manifest order (`''` when none). */
  systemPrompt: string;
  /** Injection blocks, then profile blocks. */
  blocks: ContextBlock[];
  /** The manifest's retrieval (empty unless enabled). */
  sources: ContextSource[];
  /** One line per prompt, profile block or injection that was skipped. */
  warnings: string[];
}

/**
 * The manifest-driven layers of a loaded session for one call whose query is `query` (what
 * retrieval searches; default the manifest's). The same stages as the session compile:
 * prompts (`resolveSources`), profile blocks, injections and workspace retrieval. A missing
 * injection file or block throws `not-found`, as in the session compile. Pure.
 */
export function sessionLayers(
  loaded: LoadedSession,
  options: { counter: TokenCounter; query?: string },
): SessionLayers {
  const { config, files } = loaded;
  const prompts = resolveSources(loaded.prompts);
  const profile = files.get(config.profile);
  const profileBlocks =
    profile === undefined
      ? { blocks: [], warnings: [] }
      : selectProfileBlocks({ profile, ids: config.profileBlocks, counter: options.counter });
  const injections = selectInjections({
    injections: config.injections,
    lookup: (path) => files.get(path),
    history: loaded.messages,
    counter: options.counter,
  });
  const query = options.query ?? config.query;
  const sources =
    config.retrieval?.enabled && loaded.retrievalFiles.length > 0
      ? [
          createWorkspaceRetrievalSource({
            documents: buildRetrievalDocuments(loaded.retrievalFiles),
            topK: config.retrieval.topK,
            ...(query === undefined ? {} : { query }),
          }),
        ]
      : [];
  return {
    systemPrompt: prompts.systemPrompt,
    blocks: [...injections.blocks, ...profileBlocks.blocks],
    sources,
    warnings: [...prompts.warnings, ...profileBlocks.warnings, ...injections.warnings],
  };
}
