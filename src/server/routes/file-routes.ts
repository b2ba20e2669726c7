import { link, mkdir, realpath, stat, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Context } from 'hono';
import { Hono } from 'hono';
import { z } from 'zod';
import { CtxloomError } from '../../core/index.ts';
import {
  CONTEXT_CONFIG_FILE,
  CURATION_FILE,
  MESSAGES_FILE,
  parseContextConfig,
  parseMessages,
  type Sandbox,
} from '../../workspace/index.ts';
import type { FileEntry, FileListResponse, FileWriteResponse } from '../api-types.ts';
import { etagOf, ifMatchAllows } from '../etag.ts';
import type { NotebookContext } from '../notebook-context.ts';
import { readJsonBody } from '../read-json-body.ts';
import { requireSession } from '../session-records.ts';

/** Files the session's own machinery keeps: they can be edited (validated) but not moved or deleted. */
const RESERVED_FILES: readonly string[] = [CONTEXT_CONFIG_FILE, MESSAGES_FILE, CURATION_FILE];

const writeBody = z.strictObject({ text: z.string() });
const renameBody = z.strictObject({ to: z.string().min(1).max(1024) });

/**
 * Files of a session, all through the session sandbox (no path outside the folder, symlinks
 * out refused):
 * - `GET /api/sessions/:id/files` lists them, plus the readable global files;
 * - `GET /api/sessions/:id/files/*` reads one, with an `ETag`;
 * - `PUT /api/sessions/:id/files/*` `{ text }`
 *   (JSON only) creates a file (no `If-Match`; `conflict` when it exists) or replaces one (`If-Match`
 *   with the current tag, `conflict` when stale). Atomic (temp file + rename).
 *   `context-config.json` and `messages.json` are validated first; `memory.json` (the audit
 *   log) is not writable here. Global files are written where they live, the workspace root.
 * - `PATCH /api/sessions/:id/files/*` `{ to }` renames (moves) a file; the target must not
 *   exist (`conflict`). Atomic: a hard link to the new name, then the old name is removed.
 * - `DELETE /api/sessions/:id/files/*` removes a file (`If-Match` optional, checked when sent).
 *
 * `context-config.json`, `messages.json`, `memory.json` and the global files cannot be
 * renamed or deleted from a session (`invalid-argument`).
 */
export function fileRoutes(context: NotebookContext): Hono {
  const app = new Hono();
  const { workspace } = context;

  app.get('/api/sessions/:id/files', async (c) => {
    const files = await listSessionFiles(context, c.req.param('id'));
    return c.json({ files } satisfies FileListResponse);
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
    if (target === CURATION_FILE) {
      throw new CtxloomError({
        code: 'invalid-argument',
        message: 'memory.json is the append-only curation log; use POST /api/sessions/:id/curation',
        path,
      });
    }
    if (target === CONTEXT_CONFIG_FILE) parseContextConfig(text, CONTEXT_CONFIG_FILE);
    if (target === MESSAGES_FILE) parseMessages(text, MESSAGES_FILE);
    const owner = await sandbox.owner(target);
    const written = await writeChecked(owner, target, text, c.req.header('If-Match'));
    c.header('ETag', etagOf(written));
    return c.json({
      path,
      etag: etagOf(written),
      size: Buffer.byteLength(written),
    } satisfies FileWriteResponse);
  });

  app.patch('/api/sessions/:id/files/*', async (c) => {
    const sessionId = c.req.param('id');
    await requireSession(workspace, sessionId);
    const from = filePath(c, sessionId);
    const { to } = await readJsonBody(c, renameBody);
    const sandbox = workspace.session(sessionId);
    await requireMovable(sandbox, from);
    if (RESERVED_FILES.includes(to) || workspace.globalFiles.includes(to)) {
      throw new CtxloomError({ code: 'invalid-argument', message: `${to} is a reserved name`, path: to });
    }
    const source = await sandbox.resolve(from);
    const target = await sandbox.resolve(to, { forWrite: true });
    await mkdir(dirname(target), { recursive: true });
    // Re-resolve after mkdir: a parent swapped for a symlink meanwhile must not redirect the move.
    const checked = await sandbox.resolve(to, { forWrite: true });
    if (checked !== target || (await realpath(dirname(target))) !== dirname(target)) {
      throw new CtxloomError({
        code: 'path-escape',
        message: 'the target folder changed during the move',
        path: to,
      });
    }
    try {
      await link(source, target); // fails when the target exists: never overwrites
    } catch (cause) {
      if ((cause as { code?: string }).code === 'EEXIST') {
        throw new CtxloomError({ code: 'conflict', message: `${to} already exists`, path: to, cause });
      }
      throw cause;
    }
    await unlink(source);
    const text = await sandbox.readText(to);
    return c.json({
      path: to,
      etag: etagOf(text),
      size: Buffer.byteLength(text),
    } satisfies FileWriteResponse);
  });

  app.delete('/api/sessions/:id/files/*', async (c) => {
    const sessionId = c.req.param('id');
    await requireSession(workspace, sessionId);
    const path = filePath(c, sessionId);
    const sandbox = workspace.session(sessionId);
    await requireMovable(sandbox, path);
    const ifMatch = c.req.header('If-Match');
    if (ifMatch !== undefined && !ifMatchAllows(ifMatch, await sandbox.readText(path))) {
      throw new CtxloomError({
        code: 'conflict',
        message: 'the file changed since you read it (stale ETag)',
        path,
      });
    }
    await unlink(await sandbox.resolve(path));
    return c.body(null, 204);
  });
  return app;
}

/** The session's files (dot-files hidden) plus the global files it reads, sorted by path. */
export async function listSessionFiles(context: NotebookContext, sessionId: string): Promise<FileEntry[]> {
  await requireSession(context.workspace, sessionId);
  const sandbox = context.workspace.session(sessionId);
  const local = await sandbox.list('', { recursive: true });
  const files: FileEntry[] = local
    .filter((entry) => !entry.path.split('/').some((segment) => segment.startsWith('.')))
    .map((entry) => ({ path: entry.path, kind: entry.kind, size: entry.size, global: false }));
  for (const name of context.workspace.globalFiles) {
    if (files.some((file) => file.path === name)) continue;
    const info = await sandbox.stat(name);
    if (info?.kind === 'file') files.push({ path: name, kind: 'file', size: info.size, global: true });
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return files;
}

/** A session's own, existing, regular file that is not one of the reserved files. */
async function requireMovable(sandbox: Sandbox, path: string): Promise<void> {
  if (RESERVED_FILES.includes(path)) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `${path} belongs to the session and cannot be renamed or deleted`,
      path,
    });
  }
  if ((await sandbox.owner(path)) !== sandbox) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `${path} is a workspace file shared by every session; it cannot be renamed or deleted from one`,
      path,
    });
  }
  const real = await sandbox.resolve(path);
  if (!(await stat(real)).isFile()) {
    throw new CtxloomError({ code: 'invalid-argument', message: 'is a folder, not a file', path });
  }
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
