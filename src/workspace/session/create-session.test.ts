import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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

  it('keeps every record when sessions are created concurrently', async () => {
    await Promise.all(
      Array.from({ length: 10 }, (_, index) => createSession({ workspace, concept: `c${index}` })),
    );
    expect(await workspace.listSessions()).toHaveLength(10);
  });
});
