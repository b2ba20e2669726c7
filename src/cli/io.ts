/** Where a CLI command writes; tests pass buffers, `main` passes the process streams. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** True when colours are wanted (stdout is a TTY and NO_COLOR is unset). */
  color: boolean;
}
