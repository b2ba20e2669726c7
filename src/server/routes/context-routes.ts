import { Hono } from 'hono';
import { z } from 'zod';
import { reportedReferences } from '../../session/run-turn.ts';
import { CONTEXT_CONFIG_FILE, type ContextConfig, parseContextConfig } from '../../workspace/index.ts';
import type { BlocksResponse, PreviewResponse } from '../api-types.ts';
import { etagOf, ifNoneMatchHits } from '../etag.ts';
import type { NotebookContext } from '../notebook-context.ts';
import { readBodyText, readJsonBody } from '../read-json-body.ts';
import { requireSession } from '../session-records.ts';
import { writeChecked } from './file-routes.ts';

const curationBody = z.strictObject({
  targetMessageIds: z.array(z.string().min(1)).min(1).max(100),
  action: z.enum(['exclude', 'restore']),
  summary: z.string().max(2000).optional(),
});

/**
 * The context routes: profile blocks (`?session=<id>` for the session profile, `&file=<path>` for
 * any file of the session — the chat `[file#` completion), the manifest (`context-config.json`), the preview (the
 * chat's compile without the model call) and curation.
 */
export function contextRoutes(context: NotebookContext): Hono {
  const app = new Hono();
  const { workspace } = context;

  app.get('/api/profile/blocks', async (c) => {
    const sessionId = c.req.query('session');
    let file = 'profile.md';
    let sandbox = workspace.sandbox;
    if (sessionId !== undefined) {
      await requireSession(workspace, sessionId);
      sandbox = workspace.session(sessionId);
      file = c.req.query('file') ?? (await readConfig(context, sessionId)).config.profile;
    }
    const parsed = await workspace.readParsed(sandbox, file);
    return c.json({ file, blocks: parsed.blocks, etag: etagOf(parsed.text) } satisfies BlocksResponse);
  });

  app.get('/api/sessions/:id/context-config', async (c) => {
    const sessionId = c.req.param('id');
    await requireSession(workspace, sessionId);
    const { text, config } = await readConfig(context, sessionId);
    c.header('ETag', etagOf(text));
    if (ifNoneMatchHits(c.req.header('If-None-Match'), etagOf(text))) return c.body(null, 304);
    return c.json({ config, raw: JSON.parse(text) as unknown, etag: etagOf(text) });
  });

  app.put('/api/sessions/:id/context-config', async (c) => {
    const sessionId = c.req.param('id');
    await requireSession(workspace, sessionId);
    const raw = await readBodyText(c);
    const config = parseContextConfig(raw, CONTEXT_CONFIG_FILE);
    const text = `${JSON.stringify(JSON.parse(raw), null, 2)}\n`;
    const sandbox = workspace.session(sessionId);
    const exists = await sandbox.exists(CONTEXT_CONFIG_FILE);
    const ifMatch = c.req.header('If-Match') ?? (exists ? undefined : '*');
    const written = exists
      ? await writeChecked(sandbox, CONTEXT_CONFIG_FILE, text, ifMatch)
      : await sandbox.update(CONTEXT_CONFIG_FILE, () => text);
    c.header('ETag', etagOf(written));
    return c.json({ config, etag: etagOf(written) });
  });

  app.get('/api/sessions/:id/context-preview', async (c) => {
    const sessionId = c.req.param('id');
    await requireSession(workspace, sessionId);
    const query = c.req.query('query');
    const compiled = await context.engine.compile(sessionId, query === undefined ? {} : { query });
    const compression = compiled.state.compression;
    return c.json({
      report: compiled.report,
      warnings: compiled.warnings,
      references: reportedReferences(compiled),
      contexts: compiled.compiled.contexts,
      summary: compression.summary,
      messages: compiled.messages,
      model: { spec: context.model.spec, offline: context.model.offline },
    } satisfies PreviewResponse);
  });

  app.post('/api/sessions/:id/curation', async (c) => {
    const sessionId = c.req.param('id');
    await requireSession(workspace, sessionId);
    const body = await readJsonBody(c, curationBody);
    // The whole batch or nothing: an unknown id stores none of the events.
    const events = await context.engine.curate(sessionId, {
      action: body.action,
      targetMessageIds: body.targetMessageIds,
      ...(body.summary === undefined ? {} : { summary: body.summary }),
    });
    return c.json({ events });
  });

  return app;
}

async function readConfig(
  context: NotebookContext,
  sessionId: string,
): Promise<{ text: string; config: ContextConfig }> {
  const sandbox = context.workspace.session(sessionId);
  const text = (await sandbox.exists(CONTEXT_CONFIG_FILE))
    ? await sandbox.readText(CONTEXT_CONFIG_FILE)
    : '{}';
  return { text, config: parseContextConfig(text, CONTEXT_CONFIG_FILE) };
}
