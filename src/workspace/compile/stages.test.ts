import type { Message } from 'ctxloom';
import { createCharCounter } from 'ctxloom/testing';
import { describe, expect, it } from 'vitest';
import { compileContext } from '../../core/index.ts';
import { parseMarkdownDocument } from '../blocks/parse-markdown-blocks.ts';
import { parseContextConfig } from '../config/parse-context-config.ts';
import type { CurationEvent } from '../curation/curation-event.ts';
import type { LoadedFile } from '../references/resolve-reference.ts';
import { buildQueryMessage, formatHistory } from './format-history.ts';
import { mergeReferences } from './merge-references.ts';
import { resolveSources } from './resolve-sources.ts';
import { selectInjections } from './select-injections.ts';
import { selectProfileBlocks } from './select-profile-blocks.ts';

const load = (path: string, text: string): LoadedFile => {
  const document = parseMarkdownDocument(text, path);
  return { path, lines: document.lines, blocks: document.blocks };
};
const profile = load(
  'profile.md',
  '# 基本信息\n25岁\n## 教育背景\n本科\n# 学习目标\n理解 Raft\n## 已有基础\n会 Go\n',
);
const guidance = load('guidance.md', '# 指南\n先讲直觉\n再讲公式\n# 练习\n做题\n');
const files = new Map([
  ['profile.md', profile],
  ['guidance.md', guidance],
]);
const lookup = (path: string) => files.get(path);
const counter = createCharCounter();

describe('resolveSources', () => {
  it('joins the global and session prompts in order and warns about missing ones', () => {
    const result = resolveSources([
      { type: 'global', file: 'system-prompt.md', text: '你是导师。\n' },
      { type: 'session', file: 'session-prompt.md', text: undefined },
      { type: 'session', file: 'extra.md', text: 'Be brief.' },
    ]);
    expect(result.systemPrompt).toBe('你是导师。\n\nBe brief.');
    expect(result.warnings).toEqual(['session prompt session-prompt.md does not exist; skipped']);
  });
});

describe('selectProfileBlocks', () => {
  it('selects whole sections with provenance and drops a block nested in another selected one', () => {
    const { blocks } = selectProfileBlocks({
      profile,
      ids: ['学习目标', '学习目标/已有基础', '基本信息/教育背景'],
      counter,
    });
    expect(blocks.map((block) => [block.id, block.content, block.provenance?.startLine])).toEqual([
      ['profile.md#基本信息/教育背景', '## 教育背景\n本科', 3],
      ['profile.md#学习目标', '# 学习目标\n理解 Raft\n## 已有基础\n会 Go', 5],
    ]);
    expect(blocks[0]?.layer).toBe('profile__context');
    expect(blocks[0]?.tokens).toBe('## 教育背景\n本科'.length);
  });

  it('throws not-found naming an unknown block', () => {
    expect(() => selectProfileBlocks({ profile, ids: ['量子力学入门'], counter })).toThrow(/量子力学入门/u);
  });
});

describe('selectInjections', () => {
  const injections = parseContextConfig(
    JSON.stringify({
      injections: [
        { source: 'profile.md', block: '基本信息', mode: 'always' },
        { source: 'guidance.md', block: '练习', mode: 'once', layer: 'todo__context' },
      ],
    }),
  ).injections;

  it('pins always-injections and delivers once-injections until the history records them', () => {
    const first = selectInjections({ injections, lookup, history: [], counter });
    expect(first.blocks.map((block) => [block.id, block.layer, block.pinned])).toEqual([
      ['injection:profile.md#基本信息', 'framework__context', true],
      ['injection:guidance.md#练习', 'todo__context', true],
    ]);
    expect(first.delivered).toEqual(['guidance.md#练习']);
    const history: Message[] = [
      { id: 'm1', role: 'user', content: 'hi', metadata: { injections: first.delivered } },
    ];
    const second = selectInjections({ injections, lookup, history, counter });
    expect(second.blocks.map((block) => block.id)).toEqual(['injection:profile.md#基本信息']);
  });
});

describe('mergeReferences', () => {
  it('appends inline and explicit references once each, with source lines', () => {
    const merged = mergeReferences({
      query: '这段是什么意思 [guidance.md:2:3]',
      references: [
        { path: 'guidance.md', startLine: 2, endLine: 3 },
        { path: 'guidance.md', block: '练习' },
      ],
      lookup,
    });
    expect(merged.text).toBe(
      '这段是什么意思 [guidance.md:2:3]\n\n<reference source="guidance.md:2-3">\n先讲直觉\n再讲公式\n</reference>\n\n<reference source="guidance.md:4-5" block="练习">\n# 练习\n做题\n</reference>',
    );
    expect(merged.resolved).toHaveLength(2);
  });

  it('names a missing file', () => {
    expect(() => mergeReferences({ query: '看 [nope.md:1:2]', references: [], lookup })).toThrow(/nope\.md/u);
  });
});

describe('formatHistory', () => {
  const messages: Message[] = [
    { id: 'u1', role: 'user', content: '读一下 ground truth' },
    {
      id: 'a1',
      role: 'assistant',
      content: [
        {
          type: 'tool-call',
          toolCallId: 'c1',
          toolName: 'read_file',
          input: { path: 'ground-truth.md', startLine: 30, endLine: 50 },
        },
      ],
    },
    {
      id: 't1',
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'c1',
          toolName: 'read_file',
          output: { type: 'text', value: '很长的原文……' },
        },
      ],
    },
    { id: 'a2', role: 'assistant', content: '好的' },
    { id: 'u2', role: 'user', content: '私事，请忽略' },
  ];
  const curation: CurationEvent[] = [
    {
      id: 'e1',
      type: 'dismiss',
      targetMessageId: 't1',
      summary: '与当前问题无关',
      by: 'model',
      at: '2026-01-01T00:00:00Z',
    },
    { id: 'e2', type: 'exclude', targetMessageId: 'u2', by: 'user', at: '2026-01-01T00:00:01Z' },
  ];
  const base = parseContextConfig('{}').chatHistory;

  it('shows placeholders for dismissed and excluded messages when curated', () => {
    const curated = formatHistory({ messages, curation, chatHistory: { ...base, strategy: 'curated' } });
    const tool = curated[2]!.content as { output: { value: string }; toolCallId: string }[];
    expect(tool[0]?.output.value).toBe('[已读取 ground-truth.md:30-50 — 模型判断：与当前问题无关]');
    expect(tool[0]?.toolCallId).toBe('c1');
    expect(curated[4]?.content).toBe('[用户消息 #5 — 用户已排除]');
    expect(messages[2]?.content).not.toBe(curated[2]?.content);
  });

  it('restores a message after a restore event', () => {
    const restored = formatHistory({
      messages,
      curation: [
        ...curation,
        { id: 'e3', type: 'restore', targetMessageId: 'u2', by: 'user', at: '2026-01-01T00:00:02Z' },
      ],
      chatHistory: { ...base, strategy: 'curated', placeholderLocale: 'en' },
    });
    expect(restored[4]?.content).toBe('私事，请忽略');
    expect((restored[2]!.content as { output: { value: string } }[])[0]!.output.value).toBe(
      '[read ground-truth.md:30-50 — model judged: 与当前问题无关]',
    );
  });

  it('honours dismissals and exclusions on every strategy, `full` (the default) included', () => {
    expect(base.strategy).toBe('full');
    for (const strategy of ['full', 'last-n', 'budget', 'curated'] as const) {
      const formatted = formatHistory({ messages, curation, chatHistory: { ...base, strategy, lastN: 10 } });
      const tool = formatted[2]!.content as { output: { value: string } }[];
      expect(tool[0]?.output.value).toBe('[已读取 ground-truth.md:30-50 — 模型判断：与当前问题无关]');
      expect(formatted[4]?.content).toBe('[用户消息 #5 — 用户已排除]');
    }
    expect(messages[2]?.content).not.toEqual(
      formatHistory({ messages, curation, chatHistory: base })[2]?.content,
    );
  });

  it('cuts nothing for last-n: core sends the last n without starting on a tool result, and reports the rest', async () => {
    const last = formatHistory({
      messages,
      curation: [],
      chatHistory: { ...base, strategy: 'last-n', lastN: 3 },
    });
    expect(last).toEqual(messages);
    const compiled = await compileContext(
      { history: last },
      { counter, window: 4000, maxHistoryMessages: 3 },
    );
    expect(compiled.history.map((message) => message.id)).toEqual(['a2', 'u2']);
    const history = compiled.report.layers.find((layer) => layer.layer === 'history');
    expect(history?.dropped.map((block) => [block.id, block.reason])).toEqual(
      ['t1', 'a1', 'u1'].map((id) => [`history:${id}`, { type: 'history-window', maxMessages: 3 }]),
    );
  });

  it('builds the query message with reference provenance and delivered injections', () => {
    const message = buildQueryMessage({
      id: 'q1',
      text: 'hi',
      references: [
        {
          reference: { type: 'block', path: 'a.md', block: 'x' },
          path: 'a.md',
          startLine: 1,
          endLine: 2,
          text: '',
          blockId: 'x',
        },
      ],
      injections: ['a.md#x'],
    });
    expect(message.metadata).toEqual({
      references: [{ path: 'a.md', startLine: 1, endLine: 2, block: 'x' }],
      injections: ['a.md#x'],
    });
  });
});
