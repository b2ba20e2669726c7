import { createWorkspaceTools } from '../workspace/index.ts';
import type { NotebookContext } from './notebook-context.ts';

/**
 * The tools a chat model may call: the workspace tools (`read_file`, `write_file`,
 * `list_files`, `search`, `read_block`, `dismiss_memory`), all inside the session sandbox.
 */
export function createChatTools(context: NotebookContext, sessionId: string) {
  return createWorkspaceTools({
    workspace: context.workspace,
    sessionId,
    now: context.now,
    createId: context.createId,
  });
}
