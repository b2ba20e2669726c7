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

/** A {@link CliIo} that collects output in memory, for tests and embedding. */
export function createBufferIo(options: { color?: boolean; cwd?: string } = {}): {
  io: CliIo;
  out: () => string;
  err: () => string;
} {
  let out = '';
  let err = '';
  const io: CliIo = {
    stdout: (text) => {
      out += text;
    },
    stderr: (text) => {
      err += text;
    },
    color: options.color ?? false,
  };
  if (options.cwd !== undefined) io.cwd = options.cwd;
  return { io, out: () => out, err: () => err };
}
