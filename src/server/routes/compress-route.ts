import { Hono } from 'hono';
import { z } from 'zod';
import { CompressScopeSchema } from '../../compression/index.ts';
import type { NotebookContext } from '../notebook-context.ts';
import { readJsonBody } from '../read-json-body.ts';
import { requireSession } from '../session-records.ts';

const compressBody = z.strictObject({
  /** `all` (summary, requirements, artifacts), `requirement` or `artifacts`. Default `all`. */
  scope: CompressScopeSchema.default('all'),
  /** Recent messages left verbatim (0..1000). Default 4. */
  keepLast: z.int().min(0).max(1000).default(4),
  /** Most tokens of the summary (64..8000). Default 600. */
  maxTokens: z.int().min(64).max(8000).default(600),
});

/**
 * `POST /api/sessions/:id/compress` — the engine's `/compress` (the chat command runs the
 * same): the history summary with the exact run of messages it covers, the requirement TODO
 * and the artifact index, in one write. The answer says what was summarised, what did not
 * fit, and the context's tokens before and after. `messages.json` is not changed.
 */
export function compressRoute(context: NotebookContext): Hono {
  const app = new Hono();
  app.post('/api/sessions/:id/compress', async (c) => {
    const sessionId = c.req.param('id');
    await requireSession(context.workspace, sessionId);
    const body = await readJsonBody(c, compressBody);
    const outcome = await context.engine.compress(sessionId, { ...body, signal: c.req.raw.signal });
    return c.json(outcome);
  });
  return app;
}
