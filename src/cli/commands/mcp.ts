import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CtxloomError } from '../../core/index.ts';
import { createWorkspaceMcpServer, LimitedStdioServerTransport } from '../../mcp/index.ts';
import { openWorkspace } from '../../workspace/workspace.ts';
import type { CliIo } from '../io.ts';
import { openSessionEngine } from '../open-session-engine.ts';
import { assertWorkspaceFolder } from '../session-dir.ts';
import { usageError } from '../usage-error.ts';

/** Help text of `ctxloom mcp`. */
export const MCP_HELP = `Usage: ctxloom mcp <workspace> [--session <id>] [--store <spec>]

Serve a workspace session over MCP (stdio): the tools read_file, write_file, list_files, search,
read_block and dismiss_memory, send_message (one turn of the session, as the notebook chat runs
it, on CTXLOOM_MODEL or the offline model; /compress is a command), session files as
ctxloom://files/{path}, blocks as ctxloom://blocks/{file}/{id}, outlines as
ctxloom://outline/{file} and the context preview as ctxloom://preview. Every access stays
inside the session folder.

Options:
  --session <id>  the session folder to serve (default: the first session in sessions.json)
  --store <spec>  where the session lives: files (default), sqlite:<path> or a PostgreSQL URL
  -h, --help      show this help

Example (Claude Desktop / any MCP client):
  { "command": "npx", "args": ["ctxloom", "mcp", "/path/to/workspace", "--session", "raft-consensus"] }
`;

/** `ctxloom mcp <workspace> [--session id]`: an MCP server over stdio until stdin closes. */
export async function runMcp(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      session: { type: 'string' },
      store: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout(MCP_HELP);
    return 0;
  }
  const [root, ...extra] = positionals;
  if (root === undefined || extra.length > 0) throw usageError('mcp takes exactly one <workspace>');
  const absolute = resolve(io.cwd ?? process.cwd(), root);
  await assertWorkspaceFolder(absolute, root);
  const workspace = openWorkspace({ root: absolute });
  let sessionId = values.session;
  if (sessionId === undefined) {
    const [first] = await workspace.listSessions();
    if (first === undefined)
      throw new CtxloomError({ code: 'not-found', message: 'the workspace has no sessions', file: root });
    sessionId = first.id;
  }
  const session = await workspace.sandbox.stat(sessionId);
  if (session === undefined) {
    throw new CtxloomError({
      code: 'not-found',
      message: `no session "${sessionId}" in the workspace`,
      file: sessionId,
    });
  }
  // A file (`sessions.json`) would be served as a session whose every request fails.
  if (session.kind !== 'directory') {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `session "${sessionId}" is a file, not a session folder`,
      path: '--session',
    });
  }
  // The engine `serve` and `chat` build: same store, model, summariser, proposer and tools.
  const { engine, model, close } = await openSessionEngine({
    workspace,
    cwd: io.cwd ?? process.cwd(),
    ...(values.store === undefined ? {} : { store: values.store }),
    stderr: io.stderr,
    errorLines: true,
  });
  const server = createWorkspaceMcpServer({ workspace, sessionId, engine, model });
  // Not the SDK's StdioServerTransport: it closes (and so this process exits) on a message over 10 MiB.
  const transport = new LimitedStdioServerTransport({
    ...(io.stdin === undefined ? {} : { stdin: io.stdin }),
    ...(io.stdoutStream === undefined ? {} : { stdout: io.stdoutStream }),
  });
  const closed = new Promise<void>((resolveClosed) => {
    transport.onclose = () => resolveClosed();
    io.stdin?.once('end', () => resolveClosed());
  });
  await server.connect(transport);
  io.stderr(`ctxloom mcp: serving session "${sessionId}" of ${root} over stdio\n`);
  await closed;
  await server.close();
  await close();
  return 0;
}
