import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { DEFAULT_GLOBAL_FILES } from '../../workspace/index.ts';
import { createSessionWatcher, type SessionChange } from '../../workspace/watch-sessions.ts';
import type { NotebookContext } from '../notebook-context.ts';
import { requireSession } from '../session-records.ts';

/**
 * `GET /api/sessions/:id/events` — server-sent events: `ready` once, then a `change` event
 * (`{ "paths": [...] }`) whenever a file of the session, a global file or the session list
 * (`sessions.json`: a session created, renamed or deleted anywhere) changes, from any
 * writer (this UI, the agent's tools, another editor, the MCP server), and when this process
 * stores messages, curation or compression in a checkpoint store (reported as
 * `messages.json`, `memory.json`, `compression.json`, the records' names) — or another process
 * does (seen within a second by reading the session's head). The UI refreshes the
 * file list, the editor and the context preview on it instead of polling; an idle page
 * costs one open connection and no work.
 */
export function eventsRoute(context: NotebookContext): Hono {
  const app = new Hono();
  // `sessions.json` too: every open page keeps its session list live (created, renamed or
  // deleted in another tab, the CLI or another process).
  const watcher = createSessionWatcher({
    workspace: context.workspace,
    globalFiles: [...DEFAULT_GLOBAL_FILES, 'sessions.json'],
  });
  app.get('/api/sessions/:id/events', async (c) => {
    const sessionId = c.req.param('id');
    await requireSession(context.workspace, sessionId);
    c.header('Cache-Control', 'no-store');
    return streamSSE(c, async (stream) => {
      const queue: SessionChange[] = [];
      let wake: (() => void) | undefined;
      const listener = (change: SessionChange) => {
        queue.push(change);
        wake?.();
      };
      const unsubscribe = [
        watcher.subscribe(sessionId, listener),
        context.subscribeStore(sessionId, listener),
      ];
      let open = true;
      stream.onAbort(() => {
        open = false;
        wake?.();
      });
      try {
        await stream.writeSSE({ event: 'ready', data: JSON.stringify({ session: sessionId }) });
        while (open) {
          const change = queue.shift();
          if (change === undefined) {
            await new Promise<void>((resolve) => {
              wake = resolve;
            });
            wake = undefined;
            continue;
          }
          await stream.writeSSE({ event: 'change', data: JSON.stringify(change) });
        }
      } finally {
        for (const stop of unsubscribe) stop();
      }
    });
  });
  return app;
}
