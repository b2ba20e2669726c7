/** Where a CLI command writes; tests pass buffers, `main` passes the process streams. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** True when colours are wanted (stdout is a TTY and NO_COLOR is unset). */
  color: boolean;
  /** Folder relative paths are resolved against. Default `process.cwd()`. */
  cwd?: string;
  /** Process streams for commands that speak a protocol over stdio (`mcp`). */
  stdin?: NodeJS.ReadableStream;
  stdoutStream?: NodeJS.WritableStream;
}

/** The real process's {@link CliIo}. */
export function createProcessIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    color: process.stdout.isTTY === true && process.env.NO_COLOR === undefined,
    cwd: process.cwd(),
    stdin: process.stdin,
    stdoutStream: process.stdout,
  };
}
