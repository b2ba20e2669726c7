import type { Context } from 'hono';
import { Hono } from 'hono';
import { z } from 'zod';
import { CtxloomError } from '../../core/index.ts';
import {
  CONTEXT_CONFIG_FILE,
  MEMORY_FILE,
  MESSAGES_FILE,
  parseContextConfig,
  parseMessages,
} from '../../workspace/index.ts';
import { etagOf, ifMatchAllows } from '../etag.ts';
import type { NotebookContext } from '../notebook-context.ts';
import { readJsonBody } from '../read-json-body.ts';
import { requireSession } from '../session-records.ts';

const writeBody = z.strictObject({ text: z.string() });

/**
 * Files of a session: `GET /api/sessions/:id/files` lists them (plus the readable global
 * files), `GET/PUT /api/sessions/:id/files/*` read and write one through the session sandbox.
 * Reads return an `ETag`; a write over an existing file needs `If-Match` with the current tag
 * (`conflict` otherwise), a new file needs none. A write's body is JSON `{ "text": "…" }`
 * (every write is `application/json`; docs/security.md). `context-config.json` and
 * `messages.json` are validated before they are written and `memory.json` (the audit log) is
 * not writable here — matched by where the write lands, so a symlink does not get around it.
 * Global files (`profile.md`, …) are written
 * where they live, the workspace root, so every session sees the edit.
 */
export function fileRoutes(context: NotebookContext): Hono {
  const app = new Hono();
  const { workspace } = context;

  app.get('/api/sessions/:id/files', async (c) => {
    const sessionId = c.req.param('id');
    await requireSession(workspace, sessionId);
    const sandbox = workspace.session(sessionId);
    const local = await sandbox.list('', { recursive: true });
    const files = local
      .filter((entry) => !entry.path.startsWith('.'))
      .map((entry) => ({ path: entry.path, kind: entry.kind, size: entry.size, global: false }));
    for (const name of workspace.globalFiles) {
      if (files.some((file) => file.path === name)) continue;
      const info = await sandbox.stat(name);
      if (info?.kind === 'file') files.push({ path: name, kind: 'file', size: info.size, global: true });
    }
    files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return c.json({ files });
  });

  app.get('/api/sessions/:id/files/*', async (c) => {
    const sessionId = c.req.param('id');
    await requireSession(workspace, sessionId);
    const path = filePath(c, sessionId);
    const text = await workspace.session(sessionId).readText(path);
    c.header('ETag', etagOf(text));
    c.header('Cache-Control', 'no-store');
    return c.text(text);
  });

  app.put('/api/sessions/:id/files/*', async (c) => {
    const sessionId = c.req.param('id');
    await requireSession(workspace, sessionId);
    const path = filePath(c, sessionId);
    const { text } = await readJsonBody(c, writeBody);
    const sandbox = workspace.session(sessionId);
    // Where the write lands: `sub/link-up/memory.json` is memory.json.
    const target = await sandbox.canonical(path);
    if (target === MEMORY_FILE) {
      throw new CtxloomError({
        code: 'invalid-argument',
        message: 'memory.json is the append-only curation log; use POST /api/sessions/:id/memory',
        path,
      });
    }
    if (target === CONTEXT_CONFIG_FILE) parseContextConfig(text, CONTEXT_CONFIG_FILE);
    if (target === MESSAGES_FILE) parseMessages(text, MESSAGES_FILE);
    const owner = await sandbox.owner(target);
    const written = await writeChecked(owner, target, text, c.req.header('If-Match'));
    c.header('ETag', etagOf(written));
    return c.json({ path, etag: etagOf(written), size: Buffer.byteLength(written) });
  });
  return app;
}

/** The `*` of a file route, percent-decoded (the sandbox validates it). */
function filePath(c: Context, sessionId: string): string {
  const prefix = `/api/sessions/${encodeURIComponent(sessionId)}/files/`;
  const raw = c.req.path.startsWith(prefix) ? c.req.path.slice(prefix.length) : '';
  try {
    return decodeURIComponent(raw);
  } catch (cause) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: 'bad percent-encoding in path',
      path: raw,
      cause,
    });
  }
}

/** Writes `text` when `ifMatch` matches the current content (serialised per file). */
export async function writeChecked(
  sandbox: { update(path: string, transform: (current: string | undefined) => string): Promise<string> },
  path: string,
  text: string,
  ifMatch: string | undefined,
): Promise<string> {
  return sandbox.update(path, (current) => {
    if (current !== undefined && ifMatch === undefined) {
      throw new CtxloomError({
        code: 'conflict',
        message: 'the file exists; send If-Match with the ETag you read',
        path,
      });
    }
    if (ifMatch !== undefined && !ifMatchAllows(ifMatch, current)) {
      throw new CtxloomError({
        code: 'conflict',
        message: 'the file changed since you read it (stale ETag)',
        path,
        details: current === undefined ? {} : { etag: etagOf(current) },
      });
    }
    return text;
  });
}
