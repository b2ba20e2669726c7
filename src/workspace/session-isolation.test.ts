import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSession } from './compile/load-session.ts';
import { parseContextConfig } from './config/parse-context-config.ts';
import { createWorkspaceToolset, type WorkspaceToolset } from './tools/create-workspace-toolset.ts';
import { openWorkspace, type Workspace } from './workspace.ts';

const example = fileURLToPath(new URL('../../examples/notebook', import.meta.url));
const sessionId = 'raft-consensus';
let root: string;
let workspace: Workspace;
let tools: WorkspaceToolset;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ctxloom-isolation-'));
  await cp(example, root, { recursive: true });
  await mkdir(join(root, 'other'));
  await writeFile(join(root, 'other', 'private.md'), '# secret of another session\n');
  await writeFile(join(root, 'other', 'messages.json'), '[]\n');
  workspace = openWorkspace({ root });
  tools = createWorkspaceToolset({ workspace, sessionId });
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const configWithGlobal = (file: string) =>
  parseContextConfig(JSON.stringify({ version: 1, systemPrompt: [{ type: 'global', file }] }));

describe('a session reads only its folder and the declared global files', () => {
  it.each(['other/private.md', 'other/messages.json', 'sessions.json', `${sessionId}/messages.json`])(
    'refuses a global prompt %s outside the global-file whitelist',
    async (file) => {
      await expect(
        loadSession({ workspace, sessionId, config: configWithGlobal(file) }),
      ).rejects.toMatchObject({ code: 'path-escape', file: 'context-config.json' });
    },
  );

  it('reads the whitelisted global prompt from the workspace, and the whitelist is configurable', async () => {
    const loaded = await loadSession({ workspace, sessionId, config: configWithGlobal('system-prompt.md') });
    expect(loaded.prompts[0]?.text).toContain('# 角色 / Role');
    await writeFile(join(root, 'team-rules.md'), 'rules\n');
    const custom = openWorkspace({ root, globalFiles: ['team-rules.md'] });
    const withRules = await loadSession({
      workspace: custom,
      sessionId,
      config: configWithGlobal('team-rules.md'),
    });
    expect(withRules.prompts[0]?.text).toBe('rules\n');
    await expect(
      loadSession({ workspace: custom, sessionId, config: configWithGlobal('system-prompt.md') }),
    ).rejects.toMatchObject({ code: 'path-escape' });
  });

  it('the agent cannot rewrite its own manifest to widen what it reads', async () => {
    const before = await readFile(join(root, sessionId, 'context-config.json'), 'utf8');
    await expect(
      tools.write_file.run({
        path: 'context-config.json',
        content: JSON.stringify({ version: 1, systemPrompt: [{ type: 'global', file: 'other/private.md' }] }),
      }),
    ).rejects.toMatchObject({ code: 'path-escape' });
    await expect(
      tools.write_file.run({ path: 'context-config.json', content: '{}', startLine: 1 }),
    ).rejects.toMatchObject({ code: 'path-escape' });
    expect(await readFile(join(root, sessionId, 'context-config.json'), 'utf8')).toBe(before);
  });

  it('the agent tools cannot read another session or the workspace index', async () => {
    for (const path of ['../other/private.md', '../sessions.json']) {
      await expect(tools.read_file.run({ path })).rejects.toMatchObject({ code: 'path-escape' });
    }
    await expect(tools.read_file.run({ path: 'sessions.json' })).rejects.toMatchObject({ code: 'not-found' });
  });
});

describe('read-only record files cannot be written through a symlink', () => {
  it.each(['messages.json', 'memory.json', 'context-config.json', 'compression.json'])(
    'refuses sub/link-up/%s where link-up points back to the session folder',
    async (name) => {
      await mkdir(join(root, sessionId, 'sub'));
      await symlink('..', join(root, sessionId, 'sub', 'link-up'));
      await symlink(`../${name}`, join(root, sessionId, 'sub', `alias-${name}`));
      const file = join(root, sessionId, name);
      const before = await readFile(file, 'utf8').catch(() => undefined);
      for (const path of [`sub/link-up/${name}`, `sub/link-up/sub/link-up/${name}`, `sub/alias-${name}`]) {
        // A dangling alias (compression.json does not exist yet) is refused as such.
        const dangling = before === undefined && path.startsWith('sub/alias-');
        await expect(tools.write_file.run({ path, content: '[]' })).rejects.toMatchObject({
          code: 'path-escape',
          ...(dangling ? {} : { details: { protected: name } }),
        });
        await expect(tools.write_file.run({ path, content: 'x', startLine: 1 })).rejects.toMatchObject({
          code: 'path-escape',
        });
      }
      expect(await readFile(file, 'utf8').catch(() => undefined)).toBe(before);
    },
  );

  it('refuses a global file reached through a symlink', async () => {
    await mkdir(join(root, sessionId, 'sub'));
    await symlink('..', join(root, sessionId, 'sub', 'link-up'));
    await expect(tools.write_file.run({ path: 'sub/link-up/profile.md', content: 'x' })).rejects.toThrow(
      /global workspace file/u,
    );
  });

  it('still writes ordinary files through a symlink that stays inside', async () => {
    await mkdir(join(root, sessionId, 'sub'));
    await symlink('..', join(root, sessionId, 'sub', 'link-up'));
    await tools.write_file.run({ path: 'sub/link-up/notes.md', content: '# n\n' });
    expect(await readFile(join(root, sessionId, 'notes.md'), 'utf8')).toBe('# n\n');
  });
});
