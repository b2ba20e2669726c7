import { tool } from 'ai';
import { createWorkspaceToolset, type WorkspaceToolsOptions } from './create-workspace-toolset.ts';

/**
 * The workspace tools as AI SDK 7 `tool()`s with zod input schemas, for `generateText` /
 * `streamText`: `read_file`, `write_file`, `list_files`, `search`, `read_block`,
 * `dismiss_memory`. Every tool runs inside the session sandbox; outputs are capped with an
 * explicit "truncated" marker; errors are `CtxloomError`s, which the AI SDK reports to the
 * model as tool errors.
 * @example
 * const tools = createWorkspaceTools({ workspace, sessionId: 'raft-consensus' });
 * await generateText({ model, tools, ...compiled.aiSdk });
 */
export function createWorkspaceTools(options: WorkspaceToolsOptions) {
  const set = createWorkspaceToolset(options);
  return {
    read_file: tool({
      description: set.read_file.description,
      inputSchema: set.read_file.inputSchema,
      execute: (input) => set.read_file.run(input),
    }),
    write_file: tool({
      description: set.write_file.description,
      inputSchema: set.write_file.inputSchema,
      execute: (input) => set.write_file.run(input),
    }),
    list_files: tool({
      description: set.list_files.description,
      inputSchema: set.list_files.inputSchema,
      execute: (input) => set.list_files.run(input),
    }),
    search: tool({
      description: set.search.description,
      inputSchema: set.search.inputSchema,
      execute: (input) => set.search.run(input),
    }),
    read_block: tool({
      description: set.read_block.description,
      inputSchema: set.read_block.inputSchema,
      execute: (input) => set.read_block.run(input),
    }),
    dismiss_memory: tool({
      description: set.dismiss_memory.description,
      inputSchema: set.dismiss_memory.inputSchema,
      execute: (input, { toolCallId }) => set.dismiss_memory.run(input, { toolCallId }),
    }),
  };
}

/** The AI SDK tool set returned by {@link createWorkspaceTools}. */
export type WorkspaceTools = ReturnType<typeof createWorkspaceTools>;
