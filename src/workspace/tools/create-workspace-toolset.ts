import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { recordCurationEvents } from '../session/session-store.ts';
import type { Workspace } from '../workspace.ts';
import { dismissMemoryTool, readBlockTool } from './block-tools.ts';
import { DEFAULT_MAX_OUTPUT_CHARS } from './cap-output.ts';
import { listFilesTool, readFileTool, writeFileTool } from './file-tools.ts';
import { DEFAULT_MAX_SEARCH_WORK, searchTool } from './search-tool.ts';
import { type CurateMessages, DEFAULT_READ_ONLY_FILES, type ToolContext } from './tool-context.ts';
import {
  dismissMemoryInput,
  listFilesInput,
  readBlockInput,
  readFileInput,
  searchInput,
  writeFileInput,
} from './tool-schemas.ts';

/** Options of {@link createWorkspaceToolset} and `createWorkspaceTools`. */
export interface WorkspaceToolsOptions {
  workspace: Workspace;
  sessionId: string;
  /** Cap of one tool output in characters (≥ 200). Default 20 000. */
  maxOutputChars?: number;
  /** Most `search` hits returned (1..1000). Default 50. */
  maxSearchResults?: number;
  /**
   * Work limit of one `search` call, in characters matched × compiled pattern size (≥ 1).
   * Default {@link DEFAULT_MAX_SEARCH_WORK} (32 M); past it the search stops and says where.
   */
  maxSearchWork?: number;
  /**
   * More files tools may not write (compared case-folded, after symlinks). Default
   * `DEFAULT_READ_ONLY_FILES`. The names ctxloom reserves (`RESERVED_SESSION_NAMES`, lock and
   * temp files) are never writable, whatever this says.
   */
  readOnlyFiles?: readonly string[];
  /**
   * Where `dismiss_memory` stores the model's dismissals: the session store the session is kept
   * in, e.g. `(request) => engine.curate(sessionId, request)`. Default: `memory.json` in the
   * session folder (the workspace-files store).
   */
  curate?: CurateMessages;
  now?: () => Date;
  createId?: () => string;
}

/** One tool, independent of the AI SDK or MCP: description, zod input schema, handler. */
export interface WorkspaceToolDefinition<Schema extends z.ZodType = z.ZodType> {
  description: string;
  inputSchema: Schema;
  run(input: z.infer<Schema>, call?: { toolCallId?: string }): Promise<string>;
}

/** The six workspace tools by name. */
export interface WorkspaceToolset {
  read_file: WorkspaceToolDefinition<typeof readFileInput>;
  write_file: WorkspaceToolDefinition<typeof writeFileInput>;
  list_files: WorkspaceToolDefinition<typeof listFilesInput>;
  search: WorkspaceToolDefinition<typeof searchInput>;
  read_block: WorkspaceToolDefinition<typeof readBlockInput>;
  dismiss_memory: WorkspaceToolDefinition<typeof dismissMemoryInput>;
}

/**
 * The shell-like workspace tools (seed 003) as plain definitions, all running inside the
 * session sandbox. `createWorkspaceTools` wraps them as AI SDK tools and the MCP server
 * registers the same definitions, so both speak exactly the same tools.
 */
export function createWorkspaceToolset(options: WorkspaceToolsOptions): WorkspaceToolset {
  const sandbox = options.workspace.session(options.sessionId);
  const now = options.now ?? (() => new Date());
  const createId = options.createId ?? randomUUID;
  const context: ToolContext = {
    workspace: options.workspace,
    sessionId: options.sessionId,
    sandbox,
    maxOutputChars: Math.max(200, options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS),
    maxSearchResults: Math.min(1000, Math.max(1, options.maxSearchResults ?? 50)),
    maxSearchWork: Math.max(1, options.maxSearchWork ?? DEFAULT_MAX_SEARCH_WORK),
    readOnlyFiles: options.readOnlyFiles ?? DEFAULT_READ_ONLY_FILES,
    curate:
      options.curate ??
      ((request) =>
        recordCurationEvents(
          sandbox,
          request.targetMessageIds.map((targetMessageId) => ({
            type: request.action,
            targetMessageId,
            summary: request.summary,
            by: request.by,
            ...(request.toolCallId === undefined ? {} : { toolCallId: request.toolCallId }),
          })),
          { now, createId },
        )),
    now,
    createId,
  };
  return {
    read_file: {
      description:
        'Read a file of the session folder with line numbers (like `cat -n`); optionally only lines startLine..endLine.',
      inputSchema: readFileInput,
      run: (input) => readFileTool(context, input),
    },
    write_file: {
      description:
        'Write a file of the session folder. Without a line range the whole file is replaced; with startLine and endLine exactly those lines are replaced; with startLine alone the content is inserted before that line.',
      inputSchema: writeFileInput,
      run: (input) => writeFileTool(context, input),
    },
    list_files: {
      description:
        'List the files of the session folder (recursively, with sizes) and the readable global files (like `ls -R`).',
      inputSchema: listFilesInput,
      run: (input) => listFilesTool(context, input),
    },
    search: {
      description:
        'Search text files for a literal string or a regular expression (like `grep -rn`); returns file:line: snippet, capped.',
      inputSchema: searchInput,
      run: (input) => searchTool(context, input),
    },
    read_block: {
      description:
        'Read one block of a Markdown or JSON file by heading path (e.g. "学习目标/已有基础") or short id, including its sub-blocks; without blockId, list the blocks.',
      inputSchema: readBlockInput,
      run: (input) => readBlockTool(context, input),
    },
    dismiss_memory: {
      description:
        'Mark an earlier message (usually a tool result you read) as no longer needed. It stays in the record but later calls show only a placeholder with your summary.',
      inputSchema: dismissMemoryInput,
      run: (input, call) => dismissMemoryTool(context, input, call?.toolCallId),
    },
  };
}
