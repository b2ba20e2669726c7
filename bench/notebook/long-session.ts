import { randomUUID } from 'node:crypto';
import { cp, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createOfflineModel } from '../../src/llm/index.ts';
import { type NotebookServer, startNotebookServer } from '../../src/server/index.ts';
import { openWorkspace } from '../../src/workspace/index.ts';

const EXAMPLE = fileURLToPath(new URL('../../examples/notebook', import.meta.url));
/** The example workspace's session the benchmark makes long. */
export const SESSION = 'raft-consensus';

/**
 * Serves the workspace at `root` in this process with the offline model (no chunk delay) and
 * the web build at `webRoot`.
 */
export function serveWorkspace(root: string, webRoot: string): Promise<NotebookServer> {
  return startNotebookServer({
    workspace: openWorkspace({ root }),
    model: { model: createOfflineModel({ chunkDelayMs: 0 }), spec: 'offline', offline: true },
    port: 0,
    webRoot,
  });
}

/** One chat turn through the HTTP API the notebook uses; resolves when its stream has ended. */
export async function chat(server: NotebookServer, text: string): Promise<void> {
  const response = await fetch(`${server.url}/api/sessions/${SESSION}/chat`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      id: SESSION,
      trigger: 'submit-message',
      messages: [{ id: randomUUID(), role: 'user', parts: [{ type: 'text', text }] }],
    }),
  });
  const body = await response.text();
  if (response.status !== 200 || body.includes('"type":"error"')) {
    throw new Error(`chat turn failed (${response.status}): ${body.slice(0, 500)}`);
  }
}

/**
 * A copy of the example workspace whose session has `turns` more turns (English and Chinese
 * questions alternating, real turns through the chat route: each answer is the offline
 * model's Markdown — headings, nested quotes, lists, inline code — with its logged call).
 * Returns the workspace's folder; the caller removes it.
 */
export async function createLongSession(options: {
  turns: number;
  webRoot: string;
  log: (message: string) => void;
}): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'ctxloom-bench-notebook-'));
  await cp(EXAMPLE, root, { recursive: true });
  const server = await serveWorkspace(root, options.webRoot);
  try {
    const started = performance.now();
    for (let turn = 0; turn < options.turns; turn++) {
      await chat(server, questionOf(turn));
      if ((turn + 1) % 250 === 0) {
        options.log(`${turn + 1} turns (${((performance.now() - started) / 1000).toFixed(0)} s)`);
      }
    }
  } finally {
    await server.close();
  }
  return root;
}

/** The question of turn `turn`: English and Chinese alternate, one with a line reference. */
export function questionOf(turn: number): string {
  return turn % 2 === 0
    ? `Turn ${turn}: how does a follower decide to start an election after a quiet period?`
    : `第 ${turn} 轮：日志复制时，leader 如何确认某条目已经提交？[guidance.md:1:3]`;
}
