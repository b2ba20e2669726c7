import { createWorkspaceTools, type Workspace, type WorkspaceTools } from '../workspace/index.ts';

/** What the chat tools need: the workspace, clock and ids. */
export interface ChatToolsContext {
  workspace: Workspace;
  now: () => Date;
  createId: () => string;
}

const cache = new WeakMap<Workspace, Map<string, WorkspaceTools>>();

/**
 * The tools a chat model may call: the workspace tools (`read_file`, `write_file`,
 * `list_files`, `search`, `read_block`, `dismiss_memory`), all inside the session sandbox.
 * Built once per session (the tools hold no per-request state; building converts their zod
 * schemas to JSON Schema, which is not free).
 */
export function createChatTools(context: ChatToolsContext, sessionId: string): WorkspaceTools {
  let sessions = cache.get(context.workspace);
  if (sessions === undefined) {
    sessions = new Map();
    cache.set(context.workspace, sessions);
  }
  let tools = sessions.get(sessionId);
  if (tools === undefined) {
    tools = createWorkspaceTools({
      workspace: context.workspace,
      sessionId,
      now: context.now,
      createId: context.createId,
    });
    if (sessions.size >= 1000) sessions.delete(sessions.keys().next().value as string);
    sessions.set(sessionId, tools);
  }
  return tools;
}
