import { spawn } from 'node:child_process';

/** When a child is killed: `runMs` after it printed `ready`, or after its first `ack` line. */
export type KillMark = 'ready' | 'ack';

/**
 * Starts `script` (a chat child of the crash suites) with `args` and kills it with SIGKILL
 * `runMs` after a mark: `ready` (it may die before its first turn, mid-start-up) or `ack` (its
 * first acknowledged turn this run, so the run makes progress however slow the machine is).
 * Resolves with what followed each `ack ` line, in order; rejects when the child exits by itself.
 */
export function runAndKill(options: {
  script: URL;
  args: readonly string[];
  runMs: number;
  after: KillMark;
}): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--conditions=ctxloom-source', '--no-warnings', options.script.pathname, ...options.args],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const acked: string[] = [];
    let scheduled = false;
    const killLater = () => {
      if (scheduled) return;
      scheduled = true;
      setTimeout(() => child.kill('SIGKILL'), options.runMs);
    };
    let buffered = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        if (line === 'ready' && options.after === 'ready') killLater();
        else if (line.startsWith('ack ')) {
          acked.push(line.slice(4));
          if (options.after === 'ack') killLater();
        }
      }
    });
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve(acked);
      else reject(new Error(`child exited with ${code}: ${stderr}`));
    });
  });
}
