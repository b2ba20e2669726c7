import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CtxloomError } from '../../core/index.ts';
import { compileWorkspaceContext } from '../compile/compile-workspace-context.ts';
import { openWorkspace, type Workspace } from '../workspace.ts';
import { createSession } from './create-session.ts';

let root: string;
let workspace: Workspace;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ctxloom-session-'));
  workspace = openWorkspace({ root });
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('createSession', () => {
  it('records exactly { id, concept, createdAt } and creates a compilable session folder', async () => {
    const now = () => new Date('2026-02-03T13:05:00Z');
    const record = await createSession({ workspace, concept: '量子力学入门', id: 'quantum', now });
    expect(record).toEqual({ id: 'quantum', concept: '量子力学入门', createdAt: '2026-02-03T13:05:00.000Z' });
    expect(JSON.parse(await readFile(join(root, 'sessions.json'), 'utf8'))).toEqual([record]);
    expect(await workspace.listSessions()).toEqual([record]);
    const compiled = await compileWorkspaceContext({
      workspace,
      sessionId: 'quantum',
      query: '什么是波函数？',
    });
    expect(compiled.systemPrompt).toBe('量子力学入门');
    expect(compiled.warnings).toEqual(['global prompt system-prompt.md does not exist; skipped']);
  });

  it('refuses a duplicate id and an id that would leave the workspace', async () => {
    await createSession({ workspace, concept: 'a', id: 's1' });
    await expect(createSession({ workspace, concept: 'b', id: 's1' })).rejects.toMatchObject({
      code: 'conflict',
    });
    await expect(createSession({ workspace, concept: 'c', id: '../evil' })).rejects.toMatchObject({
      code: 'invalid-argument',
    });
  });

  it("refuses an id that is an existing session's folder where names ignore case, or an existing folder, and keeps its files", async () => {
    await createSession({ workspace, concept: 'Raft', id: 'raft' });
    await writeFile(join(root, 'raft', 'messages.json'), '[{"id":"m1","role":"user","content":"keep me"}]\n');
    // On macOS and Windows `Raft` and `raft.` are the raft folder: its history would be emptied.
    for (const id of ['Raft', 'RAFT.', 'raft.']) {
      await expect(createSession({ workspace, concept: 'other', id })).rejects.toMatchObject({
        code: 'conflict',
        message: expect.stringContaining(
          `session "raft" already exists (the same folder as "${id}" where names ignore case)`,
        ),
      });
    }
    await mkdir(join(root, 'notes'));
    await writeFile(join(root, 'notes', 'messages.json'), '[]\n');
    await writeFile(join(root, 'notes', 'context-config.json'), '{"version":1,"profileBlocks":["keep"]}\n');
    await expect(createSession({ workspace, concept: 'notes', id: 'notes' })).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('a file or folder "notes" already exists in the workspace'),
    });
    expect(await readFile(join(root, 'raft', 'messages.json'), 'utf8')).toContain('keep me');
    expect(await readFile(join(root, 'notes', 'context-config.json'), 'utf8')).toContain('keep');
    expect((await workspace.listSessions()).map((session) => session.id)).toEqual(['raft']);
  });

  it('refuses a name Windows keeps for a device, and takes its record back when the folder cannot be written', async () => {
    for (const id of ['con', 'NUL', 'com1.txt', 'Lpt9.md']) {
      await expect(createSession({ workspace, concept: 'x', id })).rejects.toMatchObject({
        code: 'invalid-argument',
        path: 'id',
      });
    }
    await expect(
      createSession({ workspace, concept: 'x', id: 'broken', files: { '../escape.md': 'x' } }),
    ).rejects.toMatchObject({ code: 'path-escape' });
    expect(await readFile(join(root, 'sessions.json'), 'utf8').catch(() => 'none')).toBe('none');
    // `sub` written as a file, then `sub/notes.md` cannot be: refused while writing, taken back.
    await expect(
      createSession({ workspace, concept: 'x', id: 'broken', files: { sub: 'x', 'sub/notes.md': 'y' } }),
    ).rejects.toMatchObject({ code: 'invalid-argument' });
    expect(await workspace.listSessions()).toEqual([]);
    await expect(readFile(join(root, 'broken', 'sub'), 'utf8')).rejects.toThrow(/ENOENT/u);
    // Nothing keeps the id: it can be created now.
    await createSession({ workspace, concept: 'x', id: 'broken' });
    expect((await workspace.listSessions()).map((session) => session.id)).toEqual(['broken']);
  });

  it("throws the write's own error when the disk refuses the first file, and leaves no record", async () => {
    // What the sandbox's write throws on a full disk (its fs errors mapped, typed).
    const full = new CtxloomError({
      code: 'storage-error',
      message: 'no space left on the device',
      file: 'full/messages.json',
    });
    const write = vi.spyOn(workspace.sandbox, 'writeText').mockRejectedValueOnce(full);
    await expect(createSession({ workspace, concept: 'x', id: 'full' })).rejects.toBe(full);
    write.mockRestore();
    expect(await workspace.listSessions()).toEqual([]);
    await expect(readFile(join(root, 'full', 'messages.json'), 'utf8')).rejects.toThrow(/ENOENT/u);
  });

  it('keeps every record when sessions are created concurrently', async () => {
    await Promise.all(
      Array.from({ length: 10 }, (_, index) => createSession({ workspace, concept: `c${index}` })),
    );
    expect(await workspace.listSessions()).toHaveLength(10);
  });
});
