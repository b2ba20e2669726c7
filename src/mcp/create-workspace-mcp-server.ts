import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CtxloomError, formatReport } from '../core/index.ts';
import { createFileSessionStore, createSessionEngine, type SessionEngine } from '../session/index.ts';
import { flattenBlocks } from '../workspace/blocks/flatten-blocks.ts';
import { hasBlockParser } from '../workspace/blocks/parse-blocks.ts';
import { formatBlockOutline } from '../workspace/tools/block-tools.ts';
import {
  createWorkspaceToolset,
  type WorkspaceToolDefinition,
} from '../workspace/tools/create-workspace-toolset.ts';
import type { Workspace } from '../workspace/workspace.ts';

/** Options of {@link createWorkspaceMcpServer}. */
export interface WorkspaceMcpServerOptions {
  workspace: Workspace;
  /** The session whose folder the tools and resources see. */
  sessionId: string;
  /** Server version reported to clients. Default `0.1.0`. */
  version?: string;
  /** Most block resources listed. Default 1000. */
  maxListedBlocks?: number;
  /** The session engine the preview compiles through. Default: one over the workspace files. */
  engine?: SessionEngine;
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
 * (`ctxloom://blocks/{file}/{id}`), and the compiled-context preview (`ctxloom://preview`).
 * All access goes through the session sandbox. Connect it to a transport, e.g. stdio.
 */
export function createWorkspaceMcpServer(options: WorkspaceMcpServerOptions): McpServer {
  const { workspace, sessionId } = options;
  const sandbox = workspace.session(sessionId);
  const server = new McpServer({ name: 'ctxloom-workspace', version: options.version ?? '0.1.0' });
  const tools = createWorkspaceToolset({ workspace, sessionId });
  const engine =
    options.engine ?? createSessionEngine({ workspace, store: createFileSessionStore({ workspace }) });

  const register = (name: string, definition: WorkspaceToolDefinition) => {
    server.registerTool(
      name,
      { description: definition.description, inputSchema: definition.inputSchema },
      async (input: unknown, extra): Promise<CallToolResult> => {
        try {
          const text = await definition.run(input, { toolCallId: String(extra.requestId) });
          return { content: [{ type: 'text', text }] };
        } catch (error) {
          if (!CtxloomError.is(error)) throw error;
          return {
            content: [{ type: 'text', text: `error [${error.code}]: ${error.message}` }],
            isError: true,
          };
        }
      },
    );
  };
  for (const [name, definition] of Object.entries(tools))
    register(name, definition as WorkspaceToolDefinition);

  const sessionFiles = async () => {
    const entries = await sandbox.list('', { recursive: true, maxEntries: 2000 });
    const files = entries.filter((entry) => entry.kind === 'file').map((entry) => entry.path);
    for (const global of ['system-prompt.md', 'profile.md']) {
      if (!files.includes(global) && (await sandbox.exists(global))) files.push(global);
    }
    return files;
  };

  server.registerResource(
    'session-file',
    new ResourceTemplate('ctxloom://files/{+path}', {
      list: async () => ({
        resources: (await sessionFiles()).map((path) => ({
          uri: fileResourceUri(path),
          name: path,
          mimeType: mimeTypeOf(path),
        })),
      }),
    }),
    { description: 'A file of the session folder (global files read-only)' },
    async (uri, variables) => {
      const path = decodeURIComponent(String(variables.path));
      return {
        contents: [{ uri: uri.href, mimeType: mimeTypeOf(path), text: await sandbox.readText(path) }],
      };
    },
  );

  server.registerResource(
    'block',
    new ResourceTemplate('ctxloom://blocks/{file}/{+id}', {
      list: async () => {
        const resources: { uri: string; name: string; mimeType: string; description: string }[] = [];
        for (const file of (await sessionFiles()).filter(hasBlockParser)) {
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
        return { resources };
      },
    }),
    { description: 'One block of a Markdown or JSON file, by heading path or short id' },
    async (uri, variables) => {
      const file = decodeURIComponent(String(variables.file));
      const id = decodeURIComponent(String(variables.id));
      const text = await tools.read_block.run({ file, blockId: id });
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text }] };
    },
  );

  server.registerResource(
    'outline',
    new ResourceTemplate('ctxloom://outline/{file}', { list: undefined }),
    { description: 'The block tree of a file with ids and line ranges' },
    async (uri, variables) => {
      const file = decodeURIComponent(String(variables.file));
      const parsed = await workspace.readParsed(sandbox, file);
      return {
        contents: [
          { uri: uri.href, mimeType: 'text/plain', text: formatBlockOutline(parsed.blocks).join('\n') },
        ],
      };
    },
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
      const compiled = await engine.compile(sessionId);
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
  return server;
}

function mimeTypeOf(path: string): string {
  if (/\.(?:md|markdown)$/iu.test(path)) return 'text/markdown';
  if (/\.json$/iu.test(path)) return 'application/json';
  return 'text/plain';
}
