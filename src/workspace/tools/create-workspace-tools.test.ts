import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compileWorkspaceContext } from '../compile/compile-workspace-context.ts';
import { lockNameFor } from '../sandbox/file-lock.ts';
import { appendMessages } from '../session/session-store.ts';
import { openWorkspace, type Workspace } from '../workspace.ts';
import { createWorkspaceTools } from './create-workspace-tools.ts';
import { createWorkspaceToolset, type WorkspaceToolset } from './create-workspace-toolset.ts';

const example = fileURLToPath(new URL('../../../examples/notebook', import.meta.url));
const sessionId = 'raft-consensus';
let root: string;
let workspace: Workspace;
let tools: WorkspaceToolset;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ctxloom-tools-'));
  await cp(example, root, { recursive: true });
  workspace = openWorkspace({ root });
  tools = createWorkspaceToolset({
    workspace,
    sessionId,
    maxOutputChars: 2000,
    maxSearchResults: 5,
    createId: () => 'evt-1',
  });
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('workspace tools', () => {
  it('read_file returns numbered lines with a header', async () => {
    const output = await tools.read_file.run({ path: 'guidance.md', startLine: 1, endLine: 2 });
    expect(output).toBe('guidance.md (lines 1-2 of 50)\n1\t# 教学指南：Raft 共识\n2\t');
  });

  it('read_file caps long output with an explicit truncated marker', async () => {
    const output = await tools.read_file.run({ path: 'ground-truth.md' });
    expect(output.length).toBeLessThan(2200);
    expect(output).toMatch(/\[truncated: showed \d+ of \d+ characters; read a smaller line range/u);
  });

  it('read_file names a range past the end of the file', async () => {
    await expect(tools.read_file.run({ path: 'milestones.md', startLine: 40 })).rejects.toMatchObject({
      code: 'not-found',
      message: 'line 40 is past the end of milestones.md (it has 11 lines) (milestones.md:40)',
    });
    await expect(
      tools.read_file.run({ path: 'milestones.md', startLine: 40, endLine: 45 }),
    ).rejects.toMatchObject({
      code: 'not-found',
      message: 'lines 40-45 are outside milestones.md (it has 11 lines) (milestones.md:40)',
    });
    await tools.write_file.run({ path: 'one-line.md', content: 'only\n' });
    await expect(tools.read_file.run({ path: 'one-line.md', startLine: 2 })).rejects.toThrow(
      'line 2 is past the end of one-line.md (it has 1 line)',
    );
  });

  it('read_file refuses an endLine before its startLine as a bad argument, not a missing range', async () => {
    await expect(
      tools.read_file.run({ path: 'milestones.md', startLine: 5, endLine: 2 }),
    ).rejects.toMatchObject({
      code: 'invalid-argument',
      message: 'endLine 2 is before startLine 5 (milestones.md at endLine)',
    });
    expect(await tools.read_file.run({ path: 'milestones.md', startLine: 5, endLine: 5 })).toMatch(
      /^milestones\.md \(lines 5-5 of 11\)\n5\t/u,
    );
  });

  it('write_file replaces exactly a line range and inserts before a line', async () => {
    await tools.write_file.run({ path: 'notes.md', content: 'a\nb\nc\nd\n' });
    expect(
      await tools.write_file.run({ path: 'notes.md', content: 'B1\nB2', startLine: 2, endLine: 3 }),
    ).toBe('wrote notes.md: replaced lines 2-3 with 2 lines');
    await tools.write_file.run({ path: 'notes.md', content: '0', startLine: 1 });
    await tools.write_file.run({ path: 'notes.md', content: 'end', startLine: 6 });
    expect(await readFile(join(root, sessionId, 'notes.md'), 'utf8')).toBe('0\na\nB1\nB2\nd\nend\n');
  });

  it('write_file refuses the record files, global files and escapes', async () => {
    await expect(tools.write_file.run({ path: 'messages.json', content: '[]' })).rejects.toMatchObject({
      code: 'path-escape',
    });
    await expect(tools.write_file.run({ path: 'profile.md', content: 'x' })).rejects.toThrow(
      /global workspace file/u,
    );
    await expect(tools.write_file.run({ path: '../profile.md', content: 'x' })).rejects.toMatchObject({
      code: 'path-escape',
    });
  });

  describe('write_file refuses every name ctxloom reserves, through any link or spelling', () => {
    const lock = lockNameFor('messages.json');
    const reserved = [
      lock,
      `./${lock}`,
      lock.toUpperCase(),
      `${lock}.`,
      `notes/${lockNameFor('a.md')}`,
      `.${process.pid}-abc123.ctxloom-tmp`,
      'calls/head.json',
      'calls/0.json',
      'Calls/head.json',
      'compression.json',
      'Compression.JSON',
      'memory.json.',
      'MESSAGES.json',
      'context-config.json ',
      'sub/link-up/compression.json',
      `sub/link-up/${lock}`,
      'sub/link-up/calls/head.json',
      'to-memory.md',
    ];
    it.each(reserved)('%s', async (path) => {
      const session = join(root, sessionId);
      await mkdir(join(session, 'sub'), { recursive: true });
      await symlink('..', join(session, 'sub', 'link-up'));
      await symlink('memory.json', join(session, 'to-memory.md'));
      const before = await readdir(session, { recursive: true });
      const memory = await readFile(join(session, 'memory.json'), 'utf8');
      await expect(tools.write_file.run({ path, content: '1\n' })).rejects.toMatchObject({
        code: 'path-escape',
      });
      expect(await readdir(session, { recursive: true })).toEqual(before);
      expect(await readFile(join(session, 'memory.json'), 'utf8')).toBe(memory);
    });

    it('so an agent cannot lock its session: the next append is not held up', async () => {
      await expect(tools.write_file.run({ path: lock, content: '1\n' })).rejects.toMatchObject({
        code: 'path-escape',
      });
      const box = workspace.session(sessionId);
      await appendMessages(box, [{ id: 'after-lock', role: 'user', content: 'still here' }]);
      expect(await box.readText('messages.json')).toContain('after-lock');
    });

    it('still writes ordinary files whose names only look alike', async () => {
      for (const path of ['calls.md', 'notes/calls/x.md', 'notes/memory.json', 'ctxloom-lock.md']) {
        expect(await tools.write_file.run({ path, content: 'ok\n' })).toBe(`wrote ${path}: 1 line`);
      }
      await writeFile(join(root, sessionId, 'plain.md'), 'x');
      expect(await tools.write_file.run({ path: 'plain.md', content: 'y' })).toBe('wrote plain.md: 1 line');
    });
  });

  it('list_files lists session files and the global files', async () => {
    const output = await tools.list_files.run({});
    expect(output).toContain('guidance.md\t');
    expect(output).toContain('profile.md\t(global, read-only)');
    expect(output).not.toContain('sessions.json');
  });

  it('search finds CJK text literally and caps the hits', async () => {
    const output = await tools.search.run({ pattern: '任期' });
    expect(output.split('\n')[0]).toMatch(/^[\w.-]+:\d+: .*任期/u);
    expect(output).toMatch(/\[truncated: \d+ matching lines, showed 5/u);
    const literal = await tools.search.run({ pattern: 'term < currentTerm', path: 'ground-truth.md' });
    expect(literal).toContain('ground-truth.md:34:');
  });

  it('search accepts regular expressions and rejects invalid ones with a typed error', async () => {
    expect(
      await tools.search.run({ pattern: 'S[1-5] 以 term \\d', regex: true, path: 'messages.json' }),
    ).toContain('messages.json:');
    await expect(tools.search.run({ pattern: '(', regex: true })).rejects.toMatchObject({
      code: 'invalid-argument',
    });
  });

  it('read_block reads a block by path, falls back with a note, and lists blocks', async () => {
    const block = await tools.read_block.run({ file: 'profile.md', blockId: '学习目标/已有基础' });
    expect(block.split('\n').slice(0, 2)).toEqual([
      'profile.md#学习目标/已有基础 (lines 20-24)',
      '## 已有基础',
    ]);
    const renamed = await tools.read_block.run({ file: 'profile.md', blockId: '学习目标/已有的基础' });
    expect(renamed.startsWith('note: block "学习目标/已有的基础" not found')).toBe(true);
    const outline = await tools.read_block.run({ file: 'profile.md' });
    expect(outline).toMatch(/^ {2}学习目标\/薄弱环节 \[[0-9a-f]{6}\] \(lines 26-29\)$/mu);
  });

  it('dismiss_memory records an audited event that the next compile shows as a placeholder', async () => {
    expect(
      await tools.dismiss_memory.run(
        { targetMessageId: 'm012', summary: '已讲完 RequestVote' },
        { toolCallId: 'c7' },
      ),
    ).toContain('evt-1');
    const log = JSON.parse(await readFile(join(root, sessionId, 'memory.json'), 'utf8')) as {
      events: { id: string; toolCallId?: string }[];
    };
    expect(log.events.at(-1)).toMatchObject({ id: 'evt-1', toolCallId: 'c7', by: 'model' });
    const compiled = await compileWorkspaceContext({ workspace, sessionId });
    expect(JSON.stringify(compiled.messages.find((message) => message.id === 'm012')?.content)).toContain(
      '[已读取 ground-truth.md#Raft 知识要点（ground truth）/领导者选举/RequestVote RPC — 模型判断：已讲完 RequestVote]',
    );
  });

  it('runs as AI SDK tools inside generateText', async () => {
    const responses: LanguageModelV4GenerateResult[] = [
      {
        content: [
          {
            type: 'tool-call',
            toolCallId: 'call-1',
            toolName: 'read_block',
            input: JSON.stringify({ file: 'profile.md', blockId: '学习目标' }),
          },
        ],
        finishReason: { unified: 'tool-calls', raw: undefined },
        usage: usage(),
        warnings: [],
      },
      {
        content: [{ type: 'text', text: '好的' }],
        finishReason: { unified: 'stop', raw: undefined },
        usage: usage(),
        warnings: [],
      },
    ];
    const result = await generateText({
      model: new MockLanguageModelV4({ doGenerate: responses }),
      tools: createWorkspaceTools({ workspace, sessionId }),
      stopWhen: stepCountIs(3),
      prompt: '学生的学习目标是什么？',
    });
    const toolResult = result.steps[0]?.toolResults[0];
    expect(toolResult?.toolName).toBe('read_block');
    expect(String(toolResult?.output)).toContain('深入理解分布式系统原理');
    expect(result.text).toBe('好的');
  });
});

function usage(): LanguageModelV4GenerateResult['usage'] {
  return {
    inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 1, text: 1, reasoning: 0 },
  };
}
