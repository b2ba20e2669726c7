import type { ToolSet } from 'ai';
import { hashText } from '../../core/fingerprint.ts';
import type {
  ArtifactHandleStore,
  CompiledContext,
  CompileRequest,
  ContextBlock,
  ContextSource,
  Message,
  TokenCounter,
} from '../../core/index.ts';
import type { ResolvedReference } from '../references/resolve-reference.ts';
import { buildQueryMessage } from './format-history.ts';
import type { LoadedSession } from './load-session.ts';
import { deliveredManifestReferences, mergeReferences } from './merge-references.ts';
import { resolveSources } from './resolve-sources.ts';
import { selectInjections } from './select-injections.ts';
import { selectProfileBlocks } from './select-profile-blocks.ts';
import { buildRetrievalDocuments, createWorkspaceRetrievalSource } from './workspace-retrieval.ts';

/**
 * What a session's manifest decides of every call made in the session, apart from the
 * history: the global and session prompts, the profile blocks and injections (pinned blocks),
 * the retrieval source, the budget, the composition, and the call's user message with its
 * references merged. A chat turn compiles them with the conversation; an agent of a process
 * session compiles them with its own prompt and Blackboard layers (decisions 053, 062).
 */
export interface SessionLayers {
  /** Global and session prompts joined, in manifest order (`''` when none). */
  systemPrompt: string;
  /** Injection blocks, then profile blocks. */
  blocks: ContextBlock[];
  /** The manifest's retrieval (empty unless enabled); passages the query references are not retrieved again. */
  sources: ContextSource[];
  /** The manifest's `budget` (and the `last-n` history window), in core's compile options' terms. */
  budget: SessionBudget;
  /** The manifest's `layers`: composition order, merging, shared layers. */
  composition: SessionComposition;
  /** The call's user message with its references merged; absent when there is no query. */
  query?: SessionQuery;
  /** One line per prompt, profile block, injection or reference that was skipped or fell back. */
  warnings: string[];
  /**
   * A long session's history, as its chat turns have it (decision 066): set by the session
   * engine for the agent calls of a process turn; `sessionLayers` never sets it.
   */
  history?: SessionHistoryLayer;
}

/**
 * The machinery of a long session (decision 040) for the agent calls of one process turn
 * (decision 066): the session's stored forward-only cut, its rolling summary and the recall
 * of older messages. The session engine makes it per turn; an agent's compile hands it every
 * call.
 */
export interface SessionHistoryLayer {
  /**
   * Compiles one agent call within the session's budget. `compile` compiles a request as the
   * agent sends it, with `sources` added to its own (the recall for the call's query). The
   * call's history starts at the session's cut, the rolling summary stands for what precedes
   * it (each message reported sent, summarised, recalled or recallable); when the call would
   * pass the soft limit or drop history, the cut first moves forward — never into the turn
   * being answered — and the call is compiled again. A call still over its budget throws
   * `over-budget`, as a chat turn's does. With `ownStage` (the agent's process has its own
   * compact stage, whose soft trigger and hard limit stand) the cut moves only when history
   * would be dropped, and refusing a call over its budget is the stage's.
   */
  fit(
    request: CompileRequest,
    compile: (
      request: CompileRequest,
      sources: readonly ContextSource[],
      /** Layers sent before the history (the layer registry's `stable`), decisions 063 and 068. */
      options?: { stableLayers?: readonly string[] },
    ) => Promise<CompiledContext>,
    options?: { ownStage?: boolean },
  ): Promise<CompiledContext>;
  /**
   * The tools an agent that takes tools is offered besides its own: `search_history` over the
   * session's whole conversation (what its report calls `recallable`), from the session's first
   * call on, before any cut (decision 066, second amendment). A hit on a long message puts its whole text in `store`
   * (the call's, which the agent's `open_artifact` reads) and says how to read it page by page.
   * `steps`: the call's tool-loop messages so far, which the search covers too until they are
   * stored, so a step a call drops for room stays recallable (decision 070, fifth amendment).
   */
  tools(store: ArtifactHandleStore, steps?: () => readonly Message[]): Promise<ToolSet>;
}

/** A session's budget (`budget` and `chatHistory` of the manifest) as core's compile options name it. */
export interface SessionBudget {
  /** Context window in tokens. */
  window: number;
  /** Share of the window reserved for the answer, 0..0.9. */
  outputReserveRatio: number;
  /** Share of the input budget per source or layer name. */
  allocationRatios?: Record<string, number>;
  /** `last-n`'s history window: most history messages sent (core's `maxHistoryMessages`). */
  maxHistoryMessages?: number;
}

/** A session's composition (`layers` of the manifest) as core's compose policy names it. */
export interface SessionComposition {
  /** `cache-friendly` (volatile layers after the history) or `default` (seed 000's order). */
  order: 'default' | 'cache-friendly';
  /** One system message for all system-rendered layers. */
  merge: boolean;
  /** Whether shared `__context` layers are sent. */
  enableShareContext: boolean;
}

/** The user message of one call, as the session compile sends it. */
export interface SessionQuery {
  /** The text as the user wrote it: what the references were resolved from. */
  text: string;
  /** Id of the message (the stored user message's in a turn). */
  id: string;
  /** The text with every referenced passage appended: what the model receives. */
  content: string;
  /** The references merged, with provenance. */
  references: ResolvedReference[];
  /**
   * What the stored user message records (references' provenance, the manifest references and
   * `once` injections it carries — storing it marks them delivered).
   */
  metadata: Record<string, unknown>;
}

/**
 * The manifest-driven layers of a loaded session for one call whose user message is `query`
 * (default the manifest's `query`) with id `queryId` (default `query-<n>-<hash>`): the same
 * stages as the session compile, which is built on it — prompts (`resolveSources`), profile
 * blocks, injections, merged references, workspace retrieval — and the manifest's budget and
 * composition. A missing injection file or block throws `not-found`, a reference that cannot
 * be resolved `invalid-reference` (every bad one named), as in the session compile. Pure.
 */
export function sessionLayers(
  loaded: LoadedSession,
  options: { counter: TokenCounter; query?: string; queryId?: string },
): SessionLayers {
  const { config, files } = loaded;
  const { counter } = options;
  const lookup = (path: string) => files.get(path);
  const prompts = resolveSources(loaded.prompts);
  const profile = files.get(config.profile);
  const profileBlocks =
    profile === undefined
      ? { blocks: [], warnings: [] }
      : selectProfileBlocks({ profile, ids: config.profileBlocks, counter });
  const injections = selectInjections({
    injections: config.injections,
    lookup,
    history: loaded.messages,
    counter,
  });
  const text = options.query ?? config.query ?? '';
  // The manifest's references belong to one message: those an earlier message carried are not attached again.
  const merged = mergeReferences({
    query: text,
    references: config.references,
    lookup,
    delivered: deliveredManifestReferences(loaded.messages, options.queryId),
    ...(loaded.referenceFailures === undefined ? {} : { failures: loaded.referenceFailures }),
  });
  const message =
    merged.text === ''
      ? undefined
      : buildQueryMessage({
          id: options.queryId ?? `query-${loaded.messages.length + 1}-${hashText(merged.text)}`,
          text: merged.text,
          references: merged.resolved,
          manifestReferences: merged.attached,
          injections: injections.delivered,
        });
  const sources =
    config.retrieval?.enabled && loaded.retrievalFiles.length > 0
      ? [
          createWorkspaceRetrievalSource({
            // Passages already sent as references are not retrieved a second time.
            documents: buildRetrievalDocuments(loaded.retrievalFiles).filter(
              (document) =>
                !merged.resolved.some(
                  (reference) =>
                    reference.path === document.provenance?.file &&
                    reference.startLine <= document.provenance.startLine &&
                    reference.endLine >= document.provenance.endLine,
                ),
            ),
            topK: config.retrieval.topK,
            ...(text === '' ? {} : { query: text }),
          }),
        ]
      : [];
  const { budget, chatHistory, layers } = config;
  return {
    systemPrompt: prompts.systemPrompt,
    blocks: [...injections.blocks, ...profileBlocks.blocks],
    sources,
    budget: {
      window: budget.window,
      outputReserveRatio: budget.outputReserve,
      ...(budget.allocations === undefined ? {} : { allocationRatios: budget.allocations }),
      ...(chatHistory.strategy === 'last-n' && chatHistory.lastN !== undefined
        ? { maxHistoryMessages: chatHistory.lastN }
        : {}),
    },
    composition: { order: layers.order, merge: layers.merge, enableShareContext: layers.enableShareContext },
    ...(message === undefined
      ? {}
      : {
          query: {
            text,
            id: message.id,
            content: message.content as string,
            references: merged.resolved,
            metadata: message.metadata ?? {},
          },
        }),
    warnings: [...prompts.warnings, ...profileBlocks.warnings, ...injections.warnings, ...merged.warnings],
  };
}
