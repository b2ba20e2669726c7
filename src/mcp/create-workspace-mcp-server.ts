import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type CallToolResult, McpError, type ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { formatReport, messageText } from '../core/index.ts';
import {
  isReservedMessageId,
  LAYER_MESSAGE_ID_PREFIX,
  reservedMessageIdReason,
} from '../core/reserved-message-id.ts';
import { createFileSessionStore, createSessionEngine, type SessionEngine } from '../session/index.ts';
import { flattenBlocks } from '../workspace/blocks/flatten-blocks.ts';
import { hasBlockParser } from '../workspace/blocks/parse-blocks.ts';
import { isCallLog } from '../workspace/session/reserved-files.ts';
import { formatBlockOutline } from '../workspace/tools/block-tools.ts';
import {
  createWorkspaceToolset,
  type WorkspaceToolDefinition,
} from '../workspace/tools/create-workspace-toolset.ts';
import { DEFAULT_READ_ONLY_FILES } from '../workspace/tools/tool-context.ts';
import type { Workspace } from '../workspace/workspace.ts';
import { notifyResourceChanges } from './notify-resource-changes.ts';
import { RESOURCE_NOT_FOUND, toMcpError, toolErrorText } from './to-mcp-error.ts';

/** Hints of each workspace tool (MCP tool annotations): what it changes, and how. */
export const TOOL_ANNOTATIONS: Record<string, ToolAnnotations> = {
  read_file: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  list_files: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  search: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  read_block: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  // Replaces a file or lines of it; with a line range, repeating it inserts again.
  write_file: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  // Appends to the audit log; a later restore undoes it, nothing is lost.
  dismiss_memory: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
};

/** Record files whose blocks are not listed as resources (they stay readable by URI). */
const UNLISTED_BLOCK_FILES: readonly string[] = DEFAULT_READ_ONLY_FILES.filter(
  (file) => file !== 'context-config.json',
);

/** Options of {@link createWorkspaceMcpServer}. */
export interface WorkspaceMcpServerOptions {
  workspace: Workspace;
  /** The session whose folder the tools and resources see. */
  sessionId: string;
  /** Server version reported to clients. Default `0.1.0`. */
  version?: string;
  /** Most block resources listed. Default 1000. */
  maxListedBlocks?: number;
  /**
   * The session engine the preview compiles through and `send_message` runs turns on. Default:
   * one over the workspace files, without a model (then `send_message` is not offered).
   */
  engine?: SessionEngine;
  /** The model `send_message` turns go to, as the engine has it (shown in the tool's description). */
  model?: { spec: string; offline: boolean };
  /**
   * Watch the session folder and global files and notify clients of every change they can see
   * (resources list changed, subscribed resources updated), whoever made it. Default `true`;
   * `false` notifies only of files this server's `write_file` adds.
   */
  watch?: boolean;
  /** Changes within this many milliseconds are one notification (0..10000). Default 40. */
  watchSettleMs?: number;
}

/** Hints of `send_message`: it stores the turn and calls the session's model (outside this server). */
export const SEND_MESSAGE_ANNOTATIONS: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: true,
};

/**
 * A client id `send_message` takes: 1–120 word characters, `.`, `:` or `-`, outside the
 * namespace the engine reserves for the layer messages a compile composes (decision 086). Built
 * from the engine's prefix, so the pattern the tool advertises is the engine's rule.
 */
const CLIENT_MESSAGE_ID = new RegExp(
  `^(?!${LAYER_MESSAGE_ID_PREFIX.replace(/[\\^$.*+?()[\]{}|]/gu, '\\$&')})[\\w.:-]{1,120}$`,
);

/**
 * `send_message`: one turn of the session through `engine.runTurn` — the notebook chat's path:
 * compiled under the budget, every model call logged, the answer stored before the result
 * returns. `/compress` (and its scopes) is the engine's command, as in the chat.
 */
function registerSendMessage(
  server: McpServer,
  engine: SessionEngine,
  sessionId: string,
  model: { spec: string; offline: boolean },
): void {
  server.registerTool(
    'send_message',
    {
      description: `Send a message to session ${sessionId} and get its answer from ${model.offline ? 'the offline model' : model.spec}, exactly as the ctxloom notebook chat does: the context is compiled under the session's token budget, every model call is logged (ctxloom calls), and the turn is stored. "/compress", "/compress requirement" and "/compress artifacts" are commands: they summarise the history and update the requirement TODO and artifact index instead of calling the model.`,
      // Strict, as the workspace tools: a misspelt `messageID` is refused, not dropped (a retry would run twice).
      inputSchema: z.strictObject({
        text: z.string().min(1).max(100_000).describe('The user message (or a /compress command)'),
        messageId: z
          .string()
          .regex(CLIENT_MESSAGE_ID, {
            // The engine's words for the reserved namespace; the default message for the rest.
            error: (issue) =>
              typeof issue.input === 'string' && isReservedMessageId(issue.input)
                ? reservedMessageIdReason(issue.input)
                : undefined,
          })
          .optional()
          .describe(
            `A client id for the message (not starting with "${LAYER_MESSAGE_ID_PREFIX}", reserved); sending the same id again is refused, so a retry never runs twice`,
          ),
      }),
      outputSchema: {
        answer: z.string(),
        userMessageId: z.string(),
        storedMessageIds: z.array(z.string()),
        calls: z.array(z.object({ id: z.string(), step: z.number(), totalTokens: z.number() })),
      },
      annotations: SEND_MESSAGE_ANNOTATIONS,
    },
    async ({ text, messageId }, extra): Promise<CallToolResult> => {
      try {
        const turn = await engine.runTurn({
          sessionId,
          text,
          ...(messageId === undefined ? {} : { messageId }),
          signal: extra.signal,
        });
        let answer = '';
        for await (const chunk of turn.stream) {
          if (chunk.type === 'text-delta') answer += chunk.delta;
          else if (chunk.type === 'error') throw new Error(chunk.errorText);
        }
        const stored = await turn.stored;
        const calls = (await engine.listCalls(sessionId)).filter(
          (call) => call.turnId === turn.userMessageId,
        );
        const tokens = calls.map((call) => call.report.totalTokens);
        const footer =
          calls.length === 0
            ? `(a command: no model call)`
            : `(${calls.length} model call${calls.length === 1 ? '' : 's'}, ${tokens.join(' + ')} input tokens; call ids ${calls.map((call) => call.id).join(', ')})`;
        return {
          content: [{ type: 'text', text: `${answer}\n\n${footer}` }],
          structuredContent: {
            answer,
            userMessageId: turn.userMessageId,
            storedMessageIds: stored.map((message) => message.id),
            calls: calls.map((call) => ({
              id: call.id,
              step: call.step,
              totalTokens: call.report.totalTokens,
            })),
          },
        };
      } catch (error) {
        return { content: [{ type: 'text', text: toolErrorText(error) }], isError: true };
      }
    },
  );
}

/** URI of a session file resource. */
export function fileResourceUri(path: string): string {
  return `ctxloom://files/${path.split('/').map(encodeURIComponent).join('/')}`;
}

/** URI of a block resource (file and id percent-encoded). */
export function blockResourceUri(file: string, blockId: string): string {
  return `ctxloom://blocks/${encodeURIComponent(file)}/${encodeURIComponent(blockId)}`;
}

/**
 * An MCP server for one workspace session (official `@modelcontextprotocol/sdk`): the six
 * workspace tools (`read_file`, `write_file`, `list_files`, `search`, `read_block`,
 * `dismiss_memory`, the same definitions as the AI SDK tools), every session file as a
 * resource (`ctxloom://files/{path}`), every Markdown/JSON block as a resource
 * (`ctxloom://blocks/{file}/{id}`; the record files' blocks are not listed), the
 * compiled-context preview (`ctxloom://preview`) and the compiled context as the prompt
 * `context` (a slash command in Claude Code). Tools carry annotations (read-only,
 * destructive, idempotent); any change a client can see — a file created, deleted or edited
 * by anyone, a block added — sends `notifications/resources/list_changed` when the listed
 * resources differ and `notifications/resources/updated` for subscribed resources
 * ({@link notifyResourceChanges}); errors use the spec's codes (`-32002` missing
 * resource, `-32602` refused path or bad argument) and never name server paths. All access
 * goes through the session sandbox. Connect it to a transport, e.g. stdio.
 */
export function createWorkspaceMcpServer(options: WorkspaceMcpServerOptions): McpServer {
  const { workspace, sessionId } = options;
  const sandbox = workspace.session(sessionId);
  const server = new McpServer({ name: 'ctxloom-workspace', version: options.version ?? '0.1.0' });
  const engine =
    options.engine ?? createSessionEngine({ workspace, store: createFileSessionStore({ workspace }) });
  // dismiss_memory stores through the engine: the session's own store, files or checkpoints.
  const tools = createWorkspaceToolset({
    workspace,
    sessionId,
    curate: (request) => engine.curate(sessionId, request),
  });

  const watching = options.watch ?? true;
  const register = (name: string, definition: WorkspaceToolDefinition) => {
    server.registerTool(
      name,
      {
        description: definition.description,
        inputSchema: definition.inputSchema,
        ...(TOOL_ANNOTATIONS[name] === undefined ? {} : { annotations: TOOL_ANNOTATIONS[name] }),
      },
      async (input: unknown, extra): Promise<CallToolResult> => {
        try {
          // Without the watcher, this server tells of the files its own write_file adds.
          const added =
            !watching && name === 'write_file' && !(await fileExists((input as { path: string }).path));
          const text = await definition.run(input, { toolCallId: String(extra.requestId) });
          if (added) await server.sendResourceListChanged();
          return { content: [{ type: 'text', text }] };
        } catch (error) {
          return { content: [{ type: 'text', text: toolErrorText(error) }], isError: true };
        }
      },
    );
  };
  const fileExists = (path: string): Promise<boolean> => sandbox.exists(path).catch(() => true);
  if (options.engine !== undefined && options.model !== undefined) {
    registerSendMessage(server, engine, sessionId, options.model);
  }
  for (const [name, definition] of Object.entries(tools))
    register(name, definition as WorkspaceToolDefinition);

  // The call log's records stay readable by URI but are not listed: in a long session they and
  // their JSON blocks crowded every other file's blocks out of the listing.
  const sessionFiles = async () => {
    const entries = await sandbox.list('', {
      recursive: true,
      maxEntries: 2000,
      skipInside: isCallLog,
    });
    const files = entries.filter((entry) => entry.kind === 'file').map((entry) => entry.path);
    for (const global of workspace.globalFiles) {
      if (!files.includes(global) && (await sandbox.exists(global))) files.push(global);
    }
    return files;
  };

  const listBlocks = async () => {
    const resources: { uri: string; name: string; mimeType: string; description: string }[] = [];
    const listed = (await sessionFiles()).filter(
      (file) =>
        hasBlockParser(file) && !UNLISTED_BLOCK_FILES.includes(file) && !file.endsWith('.blocks.json'),
    );
    for (const file of listed) {
      let blocks: ReturnType<typeof flattenBlocks>;
      try {
        blocks = flattenBlocks((await workspace.readParsed(sandbox, file)).blocks);
      } catch {
        continue;
      }
      for (const block of blocks) {
        if (resources.length >= (options.maxListedBlocks ?? 1000)) break;
        resources.push({
          uri: blockResourceUri(file, block.id),
          name: `${file}#${block.id}`,
          mimeType: 'text/markdown',
          description: `lines ${block.source.startLine}-${block.source.sectionEndLine}`,
        });
      }
    }
    return resources;
  };
  if (watching) {
    notifyResourceChanges({
      server,
      workspace,
      sessionId,
      listUris: async () => [
        ...(await sessionFiles()).map(fileResourceUri),
        ...(await listBlocks()).map((resource) => resource.uri),
      ],
      fileOf: fileOfUri,
      ...(options.watchSettleMs === undefined
        ? {}
        : { settleMs: Math.min(10_000, Math.max(0, options.watchSettleMs)) }),
    });
  }

  server.registerResource(
    'session-file',
    new ResourceTemplate('ctxloom://files/{+path}', {
      // Wrapped like the reads: a failed listing leaves with the spec's code and no server path.
      list: reading(async () => ({
        resources: (await sessionFiles()).map((path) => ({
          uri: fileResourceUri(path),
          name: path,
          mimeType: mimeTypeOf(path),
        })),
      })),
    }),
    { description: 'A file of the session folder (global files read-only)' },
    reading(async (uri, variables) => {
      const path = decodeURIComponent(String(variables.path));
      return {
        contents: [{ uri: uri.href, mimeType: mimeTypeOf(path), text: await sandbox.readText(path) }],
      };
    }),
  );

  server.registerResource(
    'block',
    new ResourceTemplate('ctxloom://blocks/{file}/{+id}', {
      list: reading(async () => ({ resources: await listBlocks() })),
    }),
    { description: 'One block of a Markdown or JSON file, by heading path or short id' },
    reading(async (uri, variables) => {
      const file = decodeURIComponent(String(variables.file));
      const id = decodeURIComponent(String(variables.id));
      const text = await tools.read_block.run({ file, blockId: id });
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text }] };
    }),
  );

  server.registerResource(
    'outline',
    new ResourceTemplate('ctxloom://outline/{file}', { list: undefined }),
    { description: 'The block tree of a file with ids and line ranges' },
    reading(async (uri, variables) => {
      const file = decodeURIComponent(String(variables.file));
      const parsed = await workspace.readParsed(sandbox, file);
      return {
        contents: [
          { uri: uri.href, mimeType: 'text/plain', text: formatBlockOutline(parsed.blocks).join('\n') },
        ],
      };
    }),
  );

  server.registerResource(
    'preview',
    'ctxloom://preview',
    {
      description:
        'What the model sees: the compile report of the session (text), then the exact messages and report as JSON',
      mimeType: 'text/plain',
    },
    async (uri) => {
      const compiled = await engine.compile(sessionId).catch((error: unknown) => {
        throw toMcpError(error);
      });
      const warnings = compiled.warnings.map((warning) => `warning: ${warning}`);
      return {
        contents: [
          {
            uri: uri.href,
            mimeType: 'text/plain',
            text: [formatReport(compiled.report), ...warnings].join('\n'),
          },
          {
            uri: uri.href,
            mimeType: 'application/json',
            text: JSON.stringify({
              messages: compiled.messages,
              report: compiled.report,
              warnings: compiled.warnings,
            }),
          },
        ],
      };
    },
  );
  // Last, so it only sees URIs no other template matched: the spec's "resource not found".
  server.registerResource(
    'unknown',
    new ResourceTemplate('ctxloom://{+rest}', { list: undefined }),
    { description: 'Any other ctxloom:// URI: answers resource-not-found (-32002)' },
    async (uri) => {
      throw new McpError(RESOURCE_NOT_FOUND, `no resource ${uri.href}`, { uri: uri.href });
    },
  );

  server.registerPrompt(
    'context',
    {
      title: 'ctxloom context',
      description: `The compiled context of session ${sessionId} (context-config.json): system prompt, context layers and curated history, under the manifest's token budget. Use it as a slash command to start from exactly what the notebook's model sees.`,
      argsSchema: { query: z.string().max(20_000).optional() },
    },
    async ({ query }) => {
      try {
        const compiled = await engine.compile(
          sessionId,
          query === undefined || query === '' ? {} : { query },
        );
        const sections = compiled.messages.map((message) => {
          const layer = typeof message.metadata?.layer === 'string' ? message.metadata.layer : message.role;
          return `<${layer} role="${message.role}">\n${messageText(message)}\n</${layer}>`;
        });
        return {
          description: `ctxloom context of ${sessionId}: ${compiled.report.totalTokens} tokens`,
          messages: [{ role: 'user', content: { type: 'text', text: sections.join('\n\n') } }],
        };
      } catch (error) {
        throw toMcpError(error);
      }
    },
  );
  return server;
}

/** Wraps a resource read or list callback so every error leaves with the spec's code ({@link toMcpError}). */
function reading<Args extends unknown[], Result>(
  callback: (...args: Args) => Promise<Result>,
): (...args: Args) => Promise<Result> {
  return async (...args) => {
    try {
      return await callback(...args);
    } catch (error) {
      throw toMcpError(error);
    }
  };
}

/** The session file a resource URI shows; `undefined` for the preview (it shows every file). */
function fileOfUri(uri: string): string | undefined {
  const match = /^ctxloom:\/\/(files|blocks|outline)\/(.+)$/u.exec(uri);
  if (match === null) return undefined;
  const [, kind, rest = ''] = match;
  try {
    if (kind === 'files') return rest.split('/').map(decodeURIComponent).join('/');
    return decodeURIComponent(rest.split('/')[0] ?? '');
  } catch {
    return undefined;
  }
}

function mimeTypeOf(path: string): string {
  if (/\.(?:md|markdown)$/iu.test(path)) return 'text/markdown';
  if (/\.json$/iu.test(path)) return 'application/json';
  return 'text/plain';
}
