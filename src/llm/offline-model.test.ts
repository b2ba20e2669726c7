import { generateText, stepCountIs, streamText, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { chunkText, createOfflineModel, OFFLINE_LABEL } from './offline-model.ts';
import { resolveModel } from './resolve-model.ts';

const files: Record<string, string> = { 'guidance.md': '# 步骤\n先复习任期，再讲日志复制。' };
const readFile = tool({
  description: 'Read a file of the session',
  inputSchema: z.object({ path: z.string() }),
  execute: async ({ path }) => files[path] ?? `not found: ${path}`,
});

describe('offline model', () => {
  it('answers with the most relevant passage of the compiled context, labelled as offline', async () => {
    const { text } = await generateText({
      model: createOfflineModel(),
      instructions: [
        { role: 'system', content: 'You are a tutor.' },
        {
          role: 'system',
          content:
            'Raft terms act as a logical clock.\n\nPaxos lets gaps in the log be filled freely.\n\n领导者把命令追加到日志中，然后复制到多数派。',
        },
      ],
      prompt: '日志是怎么复制到多数派的？',
    });
    expect(text.startsWith('**[离线模型 — 未配置 LLM]**')).toBe(true);
    expect(text).toContain('上下文中最相关的段落');
    expect(text).toContain('领导者把命令追加到日志中');
    expect(text.indexOf('领导者')).toBeLessThan(
      text.indexOf('Paxos') < 0 ? Number.POSITIVE_INFINITY : text.indexOf('Paxos'),
    );
  });

  it('calls read_file when asked for a file, then reports what it returned', async () => {
    const result = await generateText({
      model: createOfflineModel(),
      tools: { read_file: readFile },
      stopWhen: stepCountIs(3),
      prompt: 'Please read guidance.md',
    });
    expect(result.steps[0]?.toolCalls[0]).toMatchObject({
      toolName: 'read_file',
      input: { path: 'guidance.md' },
    });
    expect(result.text).toContain('read_file returned');
    expect(result.text).toContain(OFFLINE_LABEL);
    expect(result.text).toContain('先复习任期');
    expect(result.text).toContain('```markdown\n# 步骤');
  });

  it('quotes the references the user attached first, then the best other passages', async () => {
    const { text } = await generateText({
      model: createOfflineModel(),
      instructions: [
        { role: 'system', content: 'You are a tutor.' },
        {
          role: 'system',
          content:
            '# Raft milestones\n\n- [x] terms and roles\n- [ ] log replication\n\n# Notes\n\nRandomised election timeouts make split votes rare.',
        },
      ],
      prompt:
        'Why are election timeouts random? [guidance.md:3:4]\n\n<reference source="guidance.md:3-4">\nA follower that hears no heartbeat becomes a candidate.\n</reference>',
    });
    expect(text.startsWith(`**${OFFLINE_LABEL}**`)).toBe(true);
    const attached = text.indexOf('A follower that hears no heartbeat');
    const passage = text.indexOf('Randomised election timeouts');
    expect(attached).toBeGreaterThan(0);
    expect(passage).toBeGreaterThan(attached);
    expect(text).toContain('*guidance.md:3-4*');
    expect(text).toContain('*Notes*');
    expect(text).not.toContain('Raft milestones');
    expect(text).not.toContain('You are a tutor');
  });

  it('answers a Chinese question in Chinese and an English one in English', async () => {
    const zh = await generateText({ model: createOfflineModel(), prompt: '什么是任期？' });
    expect(zh.text).toContain('离线模型');
    expect(zh.text).toContain('没有与这个问题相关的内容');
    expect(zh.text).not.toContain('offline model');
    const en = await generateText({ model: createOfflineModel(), prompt: 'What is a term?' });
    expect(en.text).toContain('Nothing in the compiled context matches');
  });

  it('says a denied tool call in the question’s language, under the offline label', async () => {
    const result = await createOfflineModel().doGenerate({
      prompt: [
        { role: 'user', content: [{ type: 'text', text: '读取 session-prompt.md' }] },
        {
          role: 'assistant',
          content: [
            {
              type: 'tool-call',
              toolCallId: 'c1',
              toolName: 'read_file',
              input: { path: 'session-prompt.md' },
            },
          ],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'c1',
              toolName: 'read_file',
              output: { type: 'execution-denied' },
            },
          ],
        },
      ],
    });
    expect(result.content).toEqual([
      { type: 'text', text: '**[离线模型 — 未配置 LLM]**\n\nread_file 失败：\n\n```text\n执行被拒绝\n```' },
    ]);
  });

  it('streams the answer in many small text deltas, Chinese included', async () => {
    const result = streamText({
      model: createOfflineModel(),
      instructions: [
        { role: 'system', content: '你是导师。' },
        {
          role: 'system',
          content: '领导者把命令追加到日志中，然后复制到多数派。\n\n提交规则只对当前任期的条目计数。',
        },
      ],
      prompt: '日志是怎么复制的？',
    });
    const chunks: string[] = [];
    for await (const delta of result.textStream) chunks.push(delta);
    expect(chunks.length).toBeGreaterThan(20);
    expect(Math.max(...chunks.map((chunk) => chunk.length))).toBeLessThan(40);
    expect(chunks.join('')).toContain('领导者把命令追加到日志中');
  });

  it('splits text into chunks of a few words that join back to the text', () => {
    const text = '随机超时让“同时参选”的概率很低. Terms act as a logical clock.';
    const chunks = chunkText(text);
    expect(chunks.join('')).toBe(text);
    expect(chunks.length).toBeGreaterThan(4);
  });

  it('refuses structured output with a clear error', async () => {
    const model = createOfflineModel();
    await expect(model.doGenerate({ prompt: [], responseFormat: { type: 'json' } })).rejects.toThrow(
      /structured output/,
    );
  });
});

describe('resolveModel', () => {
  it('defaults to the offline model and parses provider specs', () => {
    expect(resolveModel(undefined).offline).toBe(true);
    expect(resolveModel('openai:gpt-4o').model.modelId).toBe('gpt-4o');
    expect(resolveModel('anthropic:claude-sonnet-4-5').model.provider).toContain('anthropic');
    const local = resolveModel('openai-compatible:http://127.0.0.1:11434/v1#qwen2.5:7b');
    expect(local.modelId).toBe('qwen2.5:7b');
  });

  it('names the expected form when the spec is wrong', () => {
    expect(() => resolveModel('gpt-4o')).toThrow(/expected offline \| openai:<model>/);
    expect(() => resolveModel('openai-compatible:qwen')).toThrow(/<baseURL>#<model>/);
  });
});
