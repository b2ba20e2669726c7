#!/usr/bin/env node
// The `ctxloom` executable. It checks the Node.js version before loading anything else: the
// CLI and the library use APIs older versions lack (`node:sqlite` without a flag, …), and a
// failed import on an old Node must not look like success.
import { isSupportedNode, MIN_NODE } from '../core/node-version.ts';

if (!isSupportedNode(process.versions.node)) {
  process.stderr.write(`ctxloom needs Node.js >= ${MIN_NODE}; this is Node.js ${process.versions.node}.\n`);
  process.exit(1);
}

// Node 22.13–22.x marks `node:sqlite` experimental and prints a warning when it loads: on
// every command, about a module ctxloom chose, not the user. Only that one warning is dropped.
const emitWarning = process.emitWarning.bind(process);
process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
  const text = typeof warning === 'string' ? warning : warning.message;
  if (text.startsWith('SQLite is an experimental feature')) return;
  (emitWarning as (...args: unknown[]) => void)(warning, ...rest);
}) as typeof process.emitWarning;

const { main } = await import('./main.ts');
const { createProcessIo } = await import('./io.ts');
// `ctxloom … | head` closes the pipe early; that is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});
process.exitCode = await main(process.argv.slice(2), createProcessIo());
