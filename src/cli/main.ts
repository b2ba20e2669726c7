#!/usr/bin/env node
import { CtxloomError } from '../core/index.ts';
import { runDemo } from './commands/demo.ts';
import type { CliIo } from './io.ts';

const HELP = `ctxloom — compile the exact input of every LLM call

usage:
  ctxloom demo [dir]     compile the example in dir (default examples/demo) and print the report
  ctxloom --help         this help
`;

/** Runs one CLI invocation; returns the exit code. */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'demo':
        return await runDemo(rest, io);
      case undefined:
      case '--help':
      case '-h':
      case 'help':
        io.stdout(HELP);
        return command === undefined ? 1 : 0;
      default:
        io.stderr(`ctxloom: unknown command "${command}"\n\n${HELP}`);
        return 1;
    }
  } catch (error) {
    if (error instanceof CtxloomError) {
      io.stderr(`ctxloom: ${error.code}: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

if (import.meta.main) {
  const io: CliIo = {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    color: process.stdout.isTTY === true && process.env.NO_COLOR === undefined,
  };
  process.exitCode = await main(process.argv.slice(2), io);
}
