import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { messageText } from '../core/index.ts';
import { createTestNotebook } from '../server/test-workspace.test-support.ts';
import { createSessionEngine } from '../session/create-session-engine.ts';
import { createFileSessionStore } from '../session/file-session-store.ts';
import { detectLanguage } from './offline-answer.ts';
import { createOfflineModel } from './offline-model.ts';

let notebook: Awaited<ReturnType<typeof createTestNotebook>>;

/** The offline answer to `text` in the example session, through the session engine. */
let next = 0;
async function answer(text: string): Promise<string> {
  const engine = createSessionEngine({
    workspace: notebook.workspace,
    store: createFileSessionStore({ workspace: notebook.workspace }),
    model: { model: createOfflineModel(), spec: 'offline', offline: true },
    createId: () => `t-${++next}`,
    now: () => new Date('2026-03-01T10:00:00.000Z'),
  });
  const turn = await engine.runTurn({ sessionId: 'raft-consensus', text });
  for await (const _chunk of turn.stream);
  const stored = await turn.stored;
  return stored.map((message) => messageText(message)).join('\n');
}

const count = (text: string, part: string) => text.split(part).length - 1;
const COMMIT_RULE = '才通过计数副本提交它';

describe('the offline model on the example workspace', () => {
  beforeEach(async () => {
    notebook = await createTestNotebook();
  });
  afterEach(async () => {
    await notebook.cleanup();
  });

  it('answers "提交规则是什么？" with the 提交规则 section of ground-truth.md, first, labelled with file and heading', async () => {
    const text = await answer('提交规则是什么？');
    expect(text.startsWith('**[离线模型 — 未配置 LLM]**')).toBe(true);
    expect(count(text, COMMIT_RULE)).toBe(1);
    const first = text.indexOf('> ');
    expect(text.indexOf(COMMIT_RULE)).toBeLessThan(text.indexOf('\n— *', first));
    expect(text).toContain('— *ground-truth.md › Raft 知识要点（ground truth） › 提交规则*');
    // Its own paragraph: a label right after a quote line would continue the quote in Markdown.
    expect(text).toContain('违反安全性。\n\n— *ground-truth.md');
    // The session's standing references are not presented as the user's own.
    expect(text).not.toContain('你引用的段落');
    expect(text).not.toContain('薄弱环节');
  });

  it('labels every quoted passage with where it really sits', async () => {
    const text = await answer('提交规则是什么？');
    const labels = Array.from(text.matchAll(/^— \*(.+)\*$/gmu), (match) => match[1]);
    expect(labels.length).toBeGreaterThan(0);
    expect(labels).toContain('guidance.md › 教学指南：Raft 共识 › 讲解路线 › 第五步：提交与安全性');
  });

  it('quotes a referenced passage once, under Chinese headings only, for a Chinese question', async () => {
    const text = await answer('提交规则是什么？[ground-truth.md#Raft 知识要点（ground truth）/提交规则]');
    expect(count(text, COMMIT_RULE)).toBe(1);
    expect(text).toContain('### 你引用的段落');
    expect(text).not.toMatch(/### [A-Za-z]/u);
    expect(text).not.toContain('message*');
  });

  it('labels a line reference with the heading it starts at', async () => {
    const text = await answer('这段是什么意思？[ground-truth.md:60:64]');
    expect(text).toContain('— *ground-truth.md:60-64 › 提交规则*');
    expect(count(text, COMMIT_RULE)).toBe(1);
  });

  it('leads with the sections under a heading the question names, not a passage sharing one word', async () => {
    const text = await answer('日志复制是怎么工作的？');
    const labels = Array.from(text.matchAll(/^— \*(.+)\*$/gmu), (match) => match[1]);
    expect(labels).toEqual([
      'guidance.md › 教学指南：Raft 共识 › 讲解路线 › 第四步：日志复制',
      'ground-truth.md › Raft 知识要点（ground truth） › 日志复制 › AppendEntries RPC',
    ]);
  });

  it('answers a Chinese question with an English term in Chinese', async () => {
    const text = await answer('什么是 Leader Completeness？');
    expect(text.startsWith('**[离线模型 — 未配置 LLM]**')).toBe(true);
    expect(text).not.toContain('The most relevant');
  });

  it('reads a file asked for in Chinese under Chinese labels, its hyphenated name not counted as English', async () => {
    const text = await answer('打开 ground-truth.md');
    // The tool call's line, then the answer with what the tool returned: both labelled offline.
    expect(text.startsWith('**[离线模型 — 未配置 LLM]** 正在读取 ground-truth.md。')).toBe(true);
    expect(text).toContain('\n**[离线模型 — 未配置 LLM]**\n\nread_file 返回：\n\n```markdown\n');
    expect(text).toContain('# Raft 知识要点（ground truth）');
    expect(text).not.toContain('offline model');
    expect(text).not.toContain('returned:');
    expect(text).not.toContain('Reading ');
  });

  it('writes its hint so Markdown shows the model placeholders', async () => {
    const zh = await answer('提交规则是什么？');
    expect(zh).toContain('`openai:<模型>`');
    const en = await answer('What is the commit rule?');
    expect(en).toContain('`openai-compatible:<baseURL>#<model>`');
    expect(en).not.toContain('### 上下文');
    expect(en).toContain('### The most relevant passages in the context');
  });
});

describe('detectLanguage', () => {
  it('counts file names, paths, URLs and code spans as no words of either language', () => {
    expect(detectLanguage('打开 ground-truth.md')).toBe('zh');
    expect(detectLanguage('读取 session-prompt.md')).toBe('zh');
    expect(detectLanguage('看看 docs/notes/raft-log.json')).toBe('zh');
    expect(detectLanguage('这个链接讲了什么 https://raft.github.io/raft.pdf')).toBe('zh');
    expect(detectLanguage('解释 `commitIndex` 和 `lastApplied`')).toBe('zh');
    expect(detectLanguage('read ground-truth.md')).toBe('en');
    expect(detectLanguage('What does ground-truth.md say about 任期?')).toBe('en');
  });

  it('keeps weighing ideographs against Latin words in the rest of the question', () => {
    expect(detectLanguage('什么是 Leader Completeness？')).toBe('zh');
    expect(detectLanguage('What does 任期 mean?')).toBe('en');
    expect(detectLanguage('What is a term?')).toBe('en');
    expect(detectLanguage('ground-truth.md')).toBe('en');
  });
});
