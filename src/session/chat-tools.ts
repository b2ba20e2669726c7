import { type ToolSet, tool } from 'ai';
import { z } from 'zod';
import { openArtifactTool, toolDefinitions } from '../ai-sdk/index.ts';
import {
  type ArtifactHandleStore,
  createInMemoryArtifactStore,
  type Message,
  type ToolDefinition,
} from '../core/index.ts';
import {
  type CurationEvent,
  createWorkspaceTools,
  type DismissRequest,
  type Workspace,
  type WorkspaceTools,
} from '../workspace/index.ts';

/** What the chat tools need: the workspace, where curation goes, clock and ids. */
export interface ChatToolsContext {
  workspace: Workspace;
  /**
   * Stores the model's `dismiss_memory` events where the session is kept — the session
   * engine's `curate` — so a session in checkpoints keeps them. Default: `memory.json`.
   */
  curate?: (sessionId: string, request: DismissRequest) => Promise<readonly CurationEvent[]>;
  now: () => Date;
  createId: () => string;
}

/** One message `search_history` found. */
export interface HistoryHit {
  /** 1-based position in the conversation. */
  position: number;
  id: string;
  role: string;
  createdAt?: string;
  /** What the message says — its text, tool calls and results — or its start, when it is long. */
  text: string;
  /** When `text` is only the start: the message's length, and how to read it whole (decision 073). */
  more?: string;
}

const searchHistoryInput = z.strictObject({
  query: z.string().min(1).max(500).describe('Words to look for (any language).'),
  limit: z.int().min(1).max(20).optional().describe('Most messages returned (default 8).'),
});

const cache = new WeakMap<ChatToolsContext, Map<string, WorkspaceTools>>();

/**
 * The tools a chat model may call: the workspace tools (`read_file`, `write_file`,
 * `list_files`, `search`, `read_block`, `dismiss_memory`), all inside the session sandbox
 * (`search_history` is the turn's, {@link turnTools}).
 * Built once per context and session (the tools hold no per-request state; building converts
 * their zod schemas to JSON Schema, which is not free): create the context once.
 */
export function createChatTools(context: ChatToolsContext, sessionId: string): WorkspaceTools {
  let sessions = cache.get(context);
  if (sessions === undefined) {
    sessions = new Map();
    cache.set(context, sessions);
  }
  let tools = sessions.get(sessionId);
  if (tools === undefined) {
    const curate = context.curate;
    tools = createWorkspaceTools({
      workspace: context.workspace,
      sessionId,
      ...(curate === undefined ? {} : { curate: (request) => curate(sessionId, request) }),
      now: context.now,
      createId: context.createId,
    });
    if (sessions.size >= 1000) sessions.delete(sessions.keys().next().value as string);
    sessions.set(sessionId, tools);
  }
  return tools;
}

/** The tools of one turn: what the model may call, and their definitions as counted in the budget. */
export interface TurnTools {
  /** The tool set passed to the model, `open_artifact` included when there are tools. */
  set: ToolSet;
  /** Their JSON-schema definitions (what the provider receives), counted in every compile. */
  definitions: readonly ToolDefinition[];
  /** Where this turn's tool outputs kept out of the prompt go (`open_artifact` reads it). */
  store: ArtifactHandleStore;
  /**
   * With `search_history`: notes the turn's steps so far (the tool loop's messages after the
   * query), which the search also covers until they are stored — a step a call drops for room
   * stays recallable (decision 070, fifth amendment). Undefined without `search_history`.
   */
  noteSteps?: (steps: readonly Message[]) => void;
}

/** `search_history`'s search: the session's stored conversation, then `steps`, the turn's so far. */
export type SearchHistory = (
  query: string,
  limit: number,
  store: ArtifactHandleStore,
  steps: readonly Message[],
) => Promise<HistoryHit[]>;

/** Definitions by base tool set, without and with the turn's `search_history`. */
const definitionCache = [
  new WeakMap<ToolSet, Promise<ToolDefinition[]>>(),
  new WeakMap<ToolSet, Promise<ToolDefinition[]>>(),
] as const;

/**
 * The tools of a turn over a session's tool set: the set plus `open_artifact` (bound to a new
 * artifact store), so an output replaced by a placeholder can be re-opened, and, with
 * `searchHistory`, the `search_history` tool over it — a long message it finds is put in the
 * same store, so `open_artifact` reads it whole (decision 073). Definitions are computed once
 * per tool set. A session without tools gets none, and no placeholders.
 */
export async function turnTools(base: ToolSet, searchHistory?: SearchHistory): Promise<TurnTools> {
  const store = createInMemoryArtifactStore();
  let steps: readonly Message[] = [];
  const history =
    searchHistory === undefined
      ? {}
      : searchHistoryTool((query, limit) => searchHistory(query, limit, store, steps));
  const noted =
    searchHistory === undefined
      ? {}
      : {
          noteSteps: (next: readonly Message[]) => {
            steps = next;
          },
        };
  if (Object.keys(base).length === 0 && searchHistory === undefined)
    return { set: base, definitions: [], store };
  const set: ToolSet = { ...base, ...history, open_artifact: openArtifactTool(store) };
  const cache = definitionCache[searchHistory === undefined ? 0 : 1];
  let definitions = cache.get(base);
  if (definitions === undefined) {
    definitions = toolDefinitions(set);
    cache.set(base, definitions);
  }
  return { set, definitions: await definitions, store, ...noted };
}

/**
 * `search_history` (decision 040) over `search`: the chat model's, and an agent's of a long
 * process session (decision 066).
 */
export function searchHistoryTool(search: (query: string, limit: number) => Promise<HistoryHit[]>): {
  search_history: ToolSet[string];
} {
  return {
    search_history: tool({
      description:
        'Search this conversation for earlier messages that are no longer shown in full (older turns behind the summary); returns the best matches with their position and time.',
      inputSchema: searchHistoryInput,
      execute: async (input) => search(input.query, input.limit ?? 8),
    }),
  };
}
