import { link, lstat, readlink, realpath, stat, unlink } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { Context } from 'hono';
import { Hono } from 'hono';
import { z } from 'zod';
import { CtxloomError } from '../../core/index.ts';
import { parseBlockSidecar } from '../../workspace/blocks/index.ts';
import {
  CONTEXT_CONFIG_FILE,
  CURATION_FILE,
  foldName,
  MESSAGES_FILE,
  parseContextConfig,
  parseMessages,
  reservedNameOf,
  type Sandbox,
} from '../../workspace/index.ts';
import type { FileEntry, FileListResponse, FileWriteResponse } from '../api-types.ts';
import { etagOf, ifMatchAllows, ifNoneMatchHits } from '../etag.ts';
import type { NotebookContext } from '../notebook-context.ts';
import { readJsonBody } from '../read-json-body.ts';
import { requireSession } from '../session-records.ts';

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
 *   `context-config.json`, `messages.json` and block sidecars (`*.blocks.json`) are validated
 *   first; the other names ctxloom reserves (`memory.json` — the audit log,
 *   `compression.json`, `calls/`, lock and temp files; `reservedNameOf`) are not writable here
 *   (`reserved-name`, 403). Global files are written where they live, the workspace root.
 * - `PATCH /api/sessions/:id/files/*` `{ to }` renames (moves) a file; the target must not
 *   exist (`conflict`); a file moved to a sidecar's name is validated as one. Atomic: a hard
 *   link to the new name, then the old name is removed. A symlink is moved itself (never its
 *   target), and only when it still leads to a file inside the session from its new place.
 * - `DELETE /api/sessions/:id/files/*` removes a file, or a symlink itself (`If-Match`
 *   optional, checked when sent).
 *
 * Reserved names cannot be renamed, renamed onto or deleted (`reserved-name`, 403); global
 * files cannot be renamed or deleted from a session (`invalid-argument`). Every name is
 * judged where it sits after parent symlinks and where it leads, case-folded and without
 * trailing dots, so no link or spelling reaches one.
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
    const path = filePath(c);
    const text = await workspace.session(sessionId).readText(path);
    const etag = etagOf(text);
    c.header('ETag', etag);
    c.header('Cache-Control', 'no-store');
    if (ifNoneMatchHits(c.req.header('If-None-Match'), etag)) return c.body(null, 304);
    return c.text(text);
  });

  app.put('/api/sessions/:id/files/*', async (c) => {
    const sessionId = c.req.param('id');
    await requireSession(workspace, sessionId);
    const path = filePath(c);
    const { text } = await readJsonBody(c, writeBody);
    const sandbox = workspace.session(sessionId);
    // Where the write lands: `sub/link-up/memory.json` is memory.json.
    const target = await sandbox.canonical(path);
    const located = await sandbox.locate(path);
    const reserved = reservedNameOf(target) ?? reservedNameOf(located);
    if (reserved === CURATION_FILE) {
      throw new CtxloomError({
        code: 'reserved-name',
        message: 'memory.json is the append-only curation log; use POST /api/sessions/:id/curation',
        path,
      });
    }
    if (reserved !== undefined && reserved !== CONTEXT_CONFIG_FILE && reserved !== MESSAGES_FILE) {
      throw new CtxloomError({
        code: 'reserved-name',
        message: `${target} is kept by ctxloom (${reserved}) and cannot be written through the file routes`,
        path,
      });
    }
    if (reserved === CONTEXT_CONFIG_FILE && foldName(target) !== CONTEXT_CONFIG_FILE) {
      throw new CtxloomError({
        code: 'invalid-argument',
        message: `write ${CONTEXT_CONFIG_FILE} by its name`,
        path,
      });
    }
    if (reserved === MESSAGES_FILE && foldName(target) !== MESSAGES_FILE) {
      throw new CtxloomError({
        code: 'invalid-argument',
        message: `write ${MESSAGES_FILE} by its name`,
        path,
      });
    }
    if (reserved === CONTEXT_CONFIG_FILE) parseContextConfig(text, CONTEXT_CONFIG_FILE);
    if (reserved === MESSAGES_FILE) parseMessages(text, MESSAGES_FILE, { refuseReservedIds: true });
    // Every read of a Markdown file parses its sidecar: a bad one would fail them all.
    if (isBlockSidecar(target) || isBlockSidecar(located)) parseBlockSidecar(text, target);
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
    const from = filePath(c);
    const { to } = await readJsonBody(c, renameBody);
    const sandbox = workspace.session(sessionId);
    const source = await requireMovable(sandbox, from);
    // The destination after links: `sub/link-up/memory.json` with `link-up → ..` is memory.json.
    const landing = await sandbox.canonical(to);
    const globals = new Set(workspace.globalFiles.map(foldName));
    const located = await sandbox.locate(to);
    for (const name of [landing, located]) {
      if (reservedNameOf(name) !== undefined || globals.has(foldName(name))) {
        throw new CtxloomError({
          code: 'reserved-name',
          message: `${to} is a name ctxloom keeps for itself or a workspace file`,
          path: to,
        });
      }
    }
    if (isBlockSidecar(landing) || isBlockSidecar(located))
      parseBlockSidecar(await sandbox.readText(from), to);
    const target = await sandbox.resolve(to, { forWrite: true });
    if ((await lstat(source)).isSymbolicLink()) await requireLinkInside(sandbox, source, target, to);
    // Through the sandbox: a parent that is a file is an error naming `to`, as for a write.
    await sandbox.makeParents(to);
    // Re-resolve after creating them: a parent swapped for a symlink meanwhile must not redirect the move.
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
    const path = filePath(c);
    const sandbox = workspace.session(sessionId);
    const entry = await requireMovable(sandbox, path);
    const ifMatch = c.req.header('If-Match');
    if (ifMatch !== undefined && !ifMatchAllows(ifMatch, await sandbox.readText(path))) {
      throw new CtxloomError({
        code: 'precondition-failed',
        message: 'the file changed since you read it (stale ETag)',
        path,
      });
    }
    await unlink(entry); // a symlink itself, never its target
    return c.body(null, 204);
  });
  return app;
}

/** True for a block sidecar's name (`x.blocks.json`, as file systems may spell it). */
function isBlockSidecar(path: string): boolean {
  return foldName(path).endsWith('.blocks.json');
}

/**
 * The session's files (dot-files, lock and temp files hidden) plus the global files it reads,
 * sorted by path; each file ctxloom keeps for itself carries its `reserved` name.
 */
export async function listSessionFiles(context: NotebookContext, sessionId: string): Promise<FileEntry[]> {
  await requireSession(context.workspace, sessionId);
  const sandbox = context.workspace.session(sessionId);
  const local = await sandbox.list('', { recursive: true });
  const files: FileEntry[] = [];
  for (const entry of local) {
    if (entry.path.split('/').some((segment) => segment.startsWith('.'))) continue;
    const reserved = reservedNameOf(entry.path);
    if (reserved === 'lock file' || reserved === 'temp file') continue;
    const file: FileEntry = { path: entry.path, kind: entry.kind, size: entry.size, global: false };
    if (reserved !== undefined) file.reserved = reserved;
    files.push(file);
  }
  for (const name of context.workspace.globalFiles) {
    if (files.some((file) => file.path === name)) continue;
    const info = await sandbox.stat(name);
    if (info?.kind === 'file') files.push({ path: name, kind: 'file', size: info.size, global: true });
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return files;
}

/**
 * A session's own entry that is a file, or a symlink to one inside the session, and is not a
 * reserved name (where it sits, parent links resolved; or where it leads). Returns the
 * entry's absolute path: the link itself for a symlink, so a rename or a delete acts on it.
 */
async function requireMovable(sandbox: Sandbox, path: string): Promise<string> {
  const entry = await sandbox.locate(path);
  const reserved = reservedNameOf(entry) ?? reservedNameOf(await sandbox.canonical(path));
  if (reserved !== undefined) {
    throw new CtxloomError({
      code: 'reserved-name',
      message: `${path} is kept by ctxloom (${reserved}) and cannot be renamed or deleted`,
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
  return join(await sandbox.resolve(''), ...entry.split('/'));
}

/**
 * A symlink moved from `source` to `target` keeps its text, so a relative one points
 * elsewhere from there: it must still lead to an existing file inside the session.
 */
async function requireLinkInside(
  sandbox: Sandbox,
  source: string,
  target: string,
  to: string,
): Promise<void> {
  const text = await readlink(source);
  const root = await sandbox.resolve('');
  const leadsTo = await realpath(resolve(dirname(target), text)).catch(() => undefined);
  const inside = leadsTo !== undefined && (leadsTo === root || leadsTo.startsWith(`${root}${sep}`));
  if (!inside || !(await stat(leadsTo).then((info) => info.isFile()))) {
    throw new CtxloomError({
      code: 'path-escape',
      message: `${to}: the symlink would no longer lead to a file inside the session from there`,
      path: to,
    });
  }
}

/**
 * The `*` of a file route, percent-decoded (the sandbox validates it): everything after
 * `/api/sessions/<id>/files/`, found by position — a session id with non-ASCII characters
 * reaches the router encoded however the client chose, so it is never compared as text.
 */
function filePath(c: Context): string {
  const raw = c.req.path.split('/').slice(5).join('/');
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
        code: 'precondition-required',
        message: 'the file exists; send If-Match with the ETag you read',
        path,
      });
    }
    if (ifMatch !== undefined && !ifMatchAllows(ifMatch, current)) {
      throw new CtxloomError({
        code: 'precondition-failed',
        message: 'the file changed since you read it (stale ETag)',
        path,
        details: current === undefined ? {} : { etag: etagOf(current) },
      });
    }
    return text;
  });
}
