import { Hono } from 'hono';
import { CtxloomError } from '../../core/index.ts';
import { createMatcher, snippet, splitLines } from '../../workspace/tools/index.ts';
import type { SearchResponse } from '../api-types.ts';
import type { NotebookContext } from '../notebook-context.ts';
import { requireSession } from '../session-records.ts';
import { listSessionFiles } from './file-routes.ts';

/** Most hits one search returns. */
export const MAX_SEARCH_HITS = 200;
const MAX_LINE_CHARS = 4000;

/**
 * `GET /api/sessions/:id/search?q=<text>` — every line of the session's files (and the
 * readable global files) containing `q`, literally and case-insensitively (no regular
 * expressions from the browser, so no pattern can stall the server), as
 * `{ hits: [{ path, line, text }], total, truncated, skipped }`. At most
 * {@link MAX_SEARCH_HITS} hits; lines are matched on their first 4000 characters.
 */
export function searchRoute(context: NotebookContext): Hono {
  const app = new Hono();
  app.get('/api/sessions/:id/search', async (c) => {
    const sessionId = c.req.param('id');
    await requireSession(context.workspace, sessionId);
    const query = c.req.query('q') ?? '';
    if (query.trim() === '' || query.length > 200) {
      throw new CtxloomError({
        code: 'invalid-argument',
        message: 'q must be 1 to 200 characters',
        path: 'q',
      });
    }
    const matcher = createMatcher({ pattern: query, regex: false, caseSensitive: false });
    const sandbox = context.workspace.session(sessionId);
    const hits: SearchResponse['hits'] = [];
    let total = 0;
    let skipped = 0;
    for (const file of await listSessionFiles(context, sessionId)) {
      if (file.kind !== 'file') continue;
      let text: string;
      try {
        text = await sandbox.readText(file.path);
      } catch (error) {
        if (!CtxloomError.is(error)) throw error;
        skipped++;
        continue;
      }
      splitLines(text).forEach((line, index) => {
        const head = line.length > MAX_LINE_CHARS ? line.slice(0, MAX_LINE_CHARS) : line;
        const at = matcher.indexOf(head);
        if (at < 0) return;
        total++;
        if (hits.length < MAX_SEARCH_HITS)
          hits.push({ path: file.path, line: index + 1, text: snippet(line, at) });
      });
    }
    return c.json({ query, hits, total, truncated: total > hits.length, skipped } satisfies SearchResponse);
  });
  return app;
}
