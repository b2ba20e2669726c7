import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCharCounter } from 'ctxloom/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseContextConfig } from '../config/parse-context-config.ts';
import { appendMessages } from '../session/session-store.ts';
import { openWorkspace, type Workspace } from '../workspace.ts';
import { compileWorkspaceContext } from './compile-workspace-context.ts';

const example = fileURLToPath(new URL('../../../examples/notebook', import.meta.url));
let root: string;
let workspace: Workspace;
const sessionId = 'raft-consensus';

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ctxloom-compile-'));
  await cp(example, root, { recursive: true });
  workspace = openWorkspace({ root });
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('compileWorkspaceContext', () => {
  it('compiles the example session: prompts, profile blocks, injections, curated history and references', async () => {
    const result = await compileWorkspaceContext({ workspace, sessionId });
    expect(result.systemPrompt.startsWith('# 角色 / Role')).toBe(true);
    expect(result.systemPrompt).toContain('本次学习主题：Raft 共识算法');
    const layers = result.messages.map((message) => message.metadata?.layer);
    // Cache-friendly order: stable layers, the history, then the per-call layers before the query.
    // The profile blocks are stable: before the history (decision 071); retrieval after it.
    expect(layers.slice(0, 3)).toEqual(['system', 'framework__context', 'profile__context']);
    expect(layers.slice(-3)).toEqual(['knowledge__context', 'todo__context', 'query']);
    expect(result.compiled.contexts.profile__context).toContain('# 学习目标');
    // `8701df` is the V2 short id of 基本信息/工作经验 in profile.blocks.json
    expect(result.compiled.contexts.profile__context).toContain('## 工作经验');
    expect(result.compiled.contexts.knowledge__context).not.toContain('# 学习目标');
    expect(result.compiled.contexts.todo__context).toContain('# Raft 学习里程碑');
    const dismissed = result.messages.find((message) => message.id === 'm039');
    expect(JSON.stringify(dismissed?.content)).toContain('[已读取 ground-truth.md:79-82 — 模型判断：');
    expect(result.messages.find((message) => message.id === 'm022')?.content).toBe(
      '[用户消息 #22 — 用户已排除：与学习无关的闲聊]',
    );
    const query = result.messages.at(-1);
    expect(query?.role).toBe('user');
    expect(query?.content).toContain('<reference source="ground-truth.md:60-64">');
    expect(result.references.map((reference) => reference.path)).toEqual([
      'ground-truth.md',
      'ground-truth.md',
      'guidance.md',
    ]);
    expect(result.queryMessage?.metadata?.injections).toEqual(['guidance.md#教学指南：Raft 共识/练习题']);
    expect(result.report.fits).toBe(true);
    expect(result.openai.messages.length).toBe(result.messages.length);
    expect(result.anthropic.system.length).toBeGreaterThan(0);
    expect(result.aiSdk.instructions.length).toBeGreaterThan(0);
  });

  it('retrieves relevant workspace blocks, skipping passages already sent as references', async () => {
    const result = await compileWorkspaceContext({ workspace, sessionId });
    const retrieved = result.compiled.kept.filter((block) => block.source === 'workspace-retrieval');
    expect(retrieved.length).toBeGreaterThan(0);
    expect(retrieved.length).toBeLessThanOrEqual(3);
    for (const block of retrieved) {
      expect(['ground-truth.md', 'guidance.md']).toContain(block.provenance?.file);
      expect(block.provenance?.startLine === 60 && block.provenance.file === 'ground-truth.md').toBe(false);
    }
    expect(result.report.sources.map((source) => source.name)).toContain('workspace-retrieval');
  });

  it('stops sending a once-injection after the query carrying it is stored', async () => {
    const first = await compileWorkspaceContext({ workspace, sessionId, query: '继续' });
    expect(first.compiled.contexts.todo__context).toContain('## 练习题');
    await appendMessages(workspace.session(sessionId), [first.queryMessage!]);
    const second = await compileWorkspaceContext({ workspace, sessionId, query: '继续讲' });
    expect(second.compiled.contexts.todo__context).not.toContain('## 练习题');
    expect(second.compiled.contexts.todo__context).toContain('# Raft 学习里程碑');
  });

  it('puts the history through the budget and reports what it dropped', async () => {
    const config = parseContextConfig(
      JSON.stringify({
        chatHistory: { strategy: 'budget' },
        query: '总结一下',
        budget: { window: 4000, outputReserve: 0.25 },
      }),
    );
    const result = await compileWorkspaceContext({
      workspace,
      sessionId,
      config,
      counter: createCharCounter(),
    });
    expect(result.report.totalTokens).toBeLessThanOrEqual(3000);
    const history = result.report.layers.find((layer) => layer.layer === 'history');
    expect(history?.dropped.length).toBeGreaterThan(0);
    expect(history?.kept.length).toBeGreaterThan(0);
    expect(result.messages.at(-1)?.content).toBe('总结一下');
  });

  it('names a missing referenced file and a missing block with the closest one', async () => {
    await expect(
      compileWorkspaceContext({ workspace, sessionId, query: '看 [notes.md:1:3]' }),
    ).rejects.toMatchObject({
      code: 'invalid-reference',
      details: {
        references: [{ raw: '[notes.md:1:3]', path: 'notes.md', reason: 'missing-file', offset: 2 }],
      },
    });
    await expect(
      compileWorkspaceContext({ workspace, sessionId, query: '看 [guidance.md#量子隧穿]' }),
    ).rejects.toThrow(/block "量子隧穿" not found in guidance.md; closest block is/u);
  });

  it('refuses a reference that leaves the session folder', async () => {
    await expect(
      compileWorkspaceContext({ workspace, sessionId, query: '[../sessions.json:1:2]' }),
    ).rejects.toMatchObject({
      code: 'invalid-reference',
      details: { references: [{ path: '../sessions.json', reason: 'outside-session' }] },
    });
  });

  it('selects profile blocks by V2 short id across a heading rename', async () => {
    const before = await workspace.readParsed(workspace.sandbox, 'profile.md', { persistShortIds: true });
    const goals = before.blocks.find((block) => block.id === '学习目标');
    const shortId = goals?.shortId as string;
    const original = await workspace.sandbox.readText('profile.md');
    await workspace.sandbox.writeText('profile.md', original.replace('# 学习目标', '# 学习目标与动机'));
    const config = parseContextConfig(JSON.stringify({ profileBlocks: [shortId], query: '继续' }));
    const result = await compileWorkspaceContext({ workspace, sessionId, config });
    expect(result.compiled.contexts.profile__context).toContain('# 学习目标与动机');
    expect(result.warnings).toEqual([]);
    await workspace.sandbox.writeText('profile.md', original);
  });

  it('finds the retrieval files past a call log longer than a folder listing', async () => {
    // A files store kept with a large callCapacity: more records than one listing (1,000) holds,
    // all sorted before the notes.
    const session = 'long-log';
    await mkdir(join(root, session, 'calls'), { recursive: true });
    await writeFile(
      join(root, session, 'context-config.json'),
      JSON.stringify({ retrieval: { enabled: true } }),
    );
    await writeFile(join(root, session, 'notes.md'), '# Terms\n\nA term is the logical clock of Raft.\n');
    for (let call = 0; call < 1_001; call++)
      await writeFile(join(root, session, 'calls', `${String(call).padStart(6, '0')}.json`), '{}');
    const result = await compileWorkspaceContext({
      workspace,
      sessionId: session,
      query: 'logical clock term',
    });
    const retrieved = result.compiled.kept.filter((block) => block.source === 'workspace-retrieval');
    expect(retrieved.map((block) => block.provenance?.file)).toContain('notes.md');
  });

  it('names an unknown session', async () => {
    await expect(compileWorkspaceContext({ workspace, sessionId: 'nope' })).rejects.toMatchObject({
      code: 'not-found',
      file: 'nope',
    });
  });
});
