#!/usr/bin/env node
import { CtxloomError } from '../core/index.ts';
import { BLOCKS_HELP, runBlocks } from './commands/blocks.ts';
import { CALLS_HELP, runCalls } from './commands/calls.ts';
import { CHAT_HELP, runChat } from './commands/chat.ts';
import { COMPILE_HELP, runCompile } from './commands/compile.ts';
import { runDemo } from './commands/demo.ts';
import { MCP_HELP, runMcp } from './commands/mcp.ts';
import { MEMORY_HELP, runMemory } from './commands/memory.ts';
import { PREVIEW_HELP, runPreview } from './commands/preview.ts';
import { runServe, SERVE_HELP } from './commands/serve.ts';
import { type CliIo, createProcessIo } from './io.ts';

const HELP = `ctxloom — compile the exact input of every LLM call

usage:
  ctxloom demo [dir]                      compile the example in dir (default examples/demo) and print the report
  ctxloom compile <session-dir> [--format ai-sdk|openai|anthropic|json]
                                          compile a workspace session's context-config.json
  ctxloom preview <session-dir>           per-layer token bars, kept/dropped blocks with reasons
  ctxloom chat <session-dir> <message…>  one turn (or /compress) through the notebook's engine
  ctxloom calls <session-dir> [--show n]  the session's logged model calls and their reports
  ctxloom blocks <file>                   the block tree of a Markdown/JSON file with ids and line ranges
  ctxloom mcp <workspace> [--session id]  serve a workspace session over MCP (stdio)
  ctxloom memory <session-dir> [list|exclude|restore <id>]
                                          curate what the model sees of the history (audited)
  ctxloom serve <workspace> [--host --port]
                                          the notebook: HTTP API + web UI (http://127.0.0.1:4317)
  ctxloom <command> --help                help for one command
  ctxloom --help                          this help

exit codes: 0 ok · 1 error (the message names the file, line or path) · 2 bad usage
`;

type Command = (args: string[], io: CliIo) => Promise<number>;

const COMMANDS: Record<string, { run: Command; help?: string }> = {
  demo: { run: (args, io) => runDemo(args, io) },
  compile: { run: runCompile, help: COMPILE_HELP },
  preview: { run: runPreview, help: PREVIEW_HELP },
  chat: { run: runChat, help: CHAT_HELP },
  calls: { run: runCalls, help: CALLS_HELP },
  blocks: { run: runBlocks, help: BLOCKS_HELP },
  mcp: { run: runMcp, help: MCP_HELP },
  memory: { run: runMemory, help: MEMORY_HELP },
  serve: { run: (args, io) => runServe(args, io), help: SERVE_HELP },
};

/** Runs one CLI invocation; returns the exit code (0 ok, 1 error, 2 usage). */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    const topic = command === 'help' && rest[0] !== undefined ? COMMANDS[rest[0]]?.help : undefined;
    io.stdout(topic ?? HELP);
    return command === undefined ? 2 : 0;
  }
  const entry = COMMANDS[command];
  if (entry === undefined) {
    io.stderr(`ctxloom: unknown command "${command}"\n\n${HELP}`);
    return 2;
  }
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
    throw error;
  }
}

/** `node:util` parseArgs errors (unknown option, missing value). */
function isArgumentError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}

if (import.meta.main) {
  // `ctxloom … | head` closes the pipe early; that is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  process.exitCode = await main(process.argv.slice(2), createProcessIo());
}
