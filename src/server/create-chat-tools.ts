import {
  createWorkspaceTools,
  type DismissRequest,
  type MemoryEvent,
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
  curate?: (sessionId: string, request: DismissRequest) => Promise<readonly MemoryEvent[]>;
  now: () => Date;
  createId: () => string;
}

const cache = new WeakMap<ChatToolsContext, Map<string, WorkspaceTools>>();

/**
 * The tools a chat model may call: the workspace tools (`read_file`, `write_file`,
 * `list_files`, `search`, `read_block`, `dismiss_memory`), all inside the session sandbox.
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
