import { inspect } from 'node:util';
import { CtxloomError } from '../core/index.ts';
import type { CliIo } from './io.ts';
import { isDebug } from './model-error-log.ts';

const HELP = `ctxloom — compile the exact input of every LLM call

usage:
  ctxloom demo [dir] [--json]             compile the example in dir (default: the bundled example) and print the report
  ctxloom compile <session-dir> [--format ai-sdk|openai|anthropic|json]
                                          compile a workspace session's context-config.json
  ctxloom preview <session-dir>           per-layer token bars, kept/dropped blocks with reasons
  ctxloom chat <session-dir> <message…>  one turn (or /compress) through the notebook's engine
  ctxloom calls <session-dir> [--show n]  the session's logged model calls and their reports
  ctxloom blocks <file>                   the block tree of a Markdown/JSON file with ids and line ranges
  ctxloom mcp <workspace> [--session id]  serve a workspace session over MCP (stdio)
  ctxloom curation <session-dir> [list|exclude|restore <id>]
                                          curate what the model sees of the history (audited)
  ctxloom serve <workspace> [--host --port]
                                          the notebook: HTTP API + web UI (http://127.0.0.1:4317)
  ctxloom <command> --help                help for one command
  ctxloom --help                          this help

exit codes: 0 ok · 1 error (the message names the file, line or path) · 2 bad usage
`;

type Command = (args: string[], io: CliIo) => Promise<number>;

/**
 * Each command's module is loaded only when that command runs, so the CLI starts with the
 * core alone and a command whose integration is not installed (`mcp` needs
 * `@modelcontextprotocol/sdk`, `serve` needs `hono`, …) says which package to install.
 */
const COMMANDS: Record<string, () => Promise<{ run: Command; help?: string }>> = {
  demo: async () => {
    const { runDemo, DEMO_HELP } = await import('./commands/demo.ts');
    return { run: runDemo, help: DEMO_HELP };
  },
  compile: async () => {
    const { runCompile, COMPILE_HELP } = await import('./commands/compile.ts');
    return { run: runCompile, help: COMPILE_HELP };
  },
  preview: async () => {
    const { runPreview, PREVIEW_HELP } = await import('./commands/preview.ts');
    return { run: runPreview, help: PREVIEW_HELP };
  },
  chat: async () => {
    const { runChat, CHAT_HELP } = await import('./commands/chat.ts');
    return { run: runChat, help: CHAT_HELP };
  },
  calls: async () => {
    const { runCalls, CALLS_HELP } = await import('./commands/calls.ts');
    return { run: runCalls, help: CALLS_HELP };
  },
  blocks: async () => {
    const { runBlocks, BLOCKS_HELP } = await import('./commands/blocks.ts');
    return { run: runBlocks, help: BLOCKS_HELP };
  },
  mcp: async () => {
    const { runMcp, MCP_HELP } = await import('./commands/mcp.ts');
    return { run: runMcp, help: MCP_HELP };
  },
  curation: async () => {
    const { runCuration, CURATION_HELP } = await import('./commands/curation.ts');
    return { run: runCuration, help: CURATION_HELP };
  },
  serve: async () => {
    const { runServe, SERVE_HELP } = await import('./commands/serve.ts');
    return { run: (args, io) => runServe(args, io), help: SERVE_HELP };
  },
};

/**
 * The package a failed import names (`Cannot find package 'hono' imported from …`), for the
 * hint to install it; `undefined` for any other error.
 */
export function missingPackageOf(error: unknown): string | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' || typeof message !== 'string') return undefined;
  return /Cannot find package '([^']+)'/u.exec(message)?.[1];
}

/** Runs one CLI invocation; returns the exit code (0 ok, 1 error, 2 usage). */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    const name = command === 'help' ? rest[0] : undefined;
    const load = name === undefined ? undefined : COMMANDS[name];
    if (name !== undefined && load === undefined) return unknownCommand(name, io);
    const topic = load === undefined ? undefined : await loadCommand(name as string, load, io);
    if (topic === null) return 1;
    io.stdout(topic?.help ?? HELP);
    return command === undefined ? 2 : 0;
  }
  const load = COMMANDS[command];
  if (load === undefined) return unknownCommand(command, io);
  const entry = await loadCommand(command, load, io);
  if (entry === null) return 1;
  try {
    return await entry.run(rest, io);
  } catch (error) {
    if (error instanceof CtxloomError) {
      io.stderr(`ctxloom ${command}: ${error.code}: ${error.message}\n`);
      if (error.details?.usage === true && entry.help !== undefined) io.stderr(`\n${entry.help}`);
      return error.details?.usage === true ? 2 : 1;
    }
    if (isArgumentError(error)) {
      io.stderr(
        `ctxloom ${command}: ${(error as Error).message}\n${entry.help === undefined ? '' : `\n${entry.help}`}`,
      );
      return 2;
    }
    return internalError(command, error, io);
  }
}

/** A command (or `help` topic) that does not exist: says so with the general help, exit 2. */
function unknownCommand(command: string, io: CliIo): number {
  io.stderr(`ctxloom: unknown command "${command}"\n\n${HELP}`);
  return 2;
}

/**
 * Any other error is a bug in ctxloom, or a failure nothing maps to a {@link CtxloomError} yet:
 * one line (exit 1), not Node's stack trace, whose message may name paths outside the
 * workspace. `CTXLOOM_DEBUG=1` prints the whole error for a bug report.
 */
function internalError(command: string, error: unknown, io: CliIo): number {
  const name = error instanceof Error ? error.name : typeof error;
  const code = (error as { code?: unknown } | null)?.code;
  const what = typeof code === 'string' ? `${name} ${code}` : name;
  if (isDebug(process.env)) {
    io.stderr(`ctxloom ${command}: internal error (${what}):\n${inspect(error, { depth: 6 })}\n`);
  } else {
    io.stderr(`ctxloom ${command}: internal error (${what}); CTXLOOM_DEBUG=1 prints it in full\n`);
  }
  return 1;
}

/** Loads a command's module; `null` (after saying which package to install) when a dependency is missing. */
async function loadCommand(
  command: string,
  load: () => Promise<{ run: Command; help?: string }>,
  io: CliIo,
): Promise<{ run: Command; help?: string } | null> {
  try {
    return await load();
  } catch (error) {
    const name = missingPackageOf(error);
    if (name === undefined) {
      internalError(command, error, io);
      return null;
    }
    io.stderr(
      `ctxloom ${command}: needs the package "${name}", which is not installed: npm install ${name}\n`,
    );
    return null;
  }
}

/** `node:util` parseArgs errors (unknown option, missing value). */
function isArgumentError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}
