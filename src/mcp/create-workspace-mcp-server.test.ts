import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockResourceUri, fileResourceUri } from './create-workspace-mcp-server.ts';

const example = fileURLToPath(new URL('../../examples/notebook', import.meta.url));
const cli = fileURLToPath(new URL('../cli/bin.ts', import.meta.url));
let root: string;
let client: Client;

const text = (result: unknown): string =>
  ((result as { content: { type: string; text: string }[] }).content[0] as { text: string }).text;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ctxloom-mcp-'));
  await cp(example, root, { recursive: true });
  client = new Client({ name: 'ctxloom-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [cli, 'mcp', root, '--session', 'raft-consensus'],
      stderr: 'pipe',
    }),
  );
});
afterAll(async () => {
  await client.close();
  await rm(root, { recursive: true, force: true });
});

describe('ctxloom mcp (driven by the SDK client over stdio)', () => {
  it('lists the six workspace tools and send_message with JSON schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'dismiss_memory',
      'list_files',
      'read_block',
      'read_file',
      'search',
      'send_message',
      'write_file',
    ]);
    const readFile = tools.find((tool) => tool.name === 'read_file');
    expect(readFile?.inputSchema.properties).toHaveProperty('startLine');
  });

  it('calls read_file and read_block inside the session', async () => {
    expect(
      text(
        await client.callTool({
          name: 'read_file',
          arguments: { path: 'milestones.md', startLine: 1, endLine: 1 },
        }),
      ),
    ).toBe('milestones.md (lines 1-1 of 11)\n1\t# Raft 学习里程碑');
    expect(
      text(
        await client.callTool({ name: 'read_block', arguments: { file: 'profile.md', blockId: '学习目标' } }),
      ),
    ).toContain('深入理解分布式系统原理');
  });

  it('returns path escapes as tool errors naming the path', async () => {
    const result = await client.callTool({ name: 'read_file', arguments: { path: '../sessions.json' } });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('error [path-escape]: refused path "../sessions.json"');
  });

  it('writes files with write_file and records dismissals in the audit log', async () => {
    await client.callTool({
      name: 'write_file',
      arguments: { path: 'notes/summary.md', content: '# 小结\n' },
    });
    expect(await readFile(join(root, 'raft-consensus', 'notes', 'summary.md'), 'utf8')).toBe('# 小结\n');
    const dismissed = await client.callTool({
      name: 'dismiss_memory',
      arguments: { targetMessageId: 'm032', summary: '已讨论完' },
    });
    expect(dismissed.isError).toBeFalsy();
    const log = JSON.parse(await readFile(join(root, 'raft-consensus', 'memory.json'), 'utf8')) as {
      events: { targetMessageId: string }[];
    };
    expect(log.events.at(-1)?.targetMessageId).toBe('m032');
  });

  it('exposes session files and blocks as resources', async () => {
    const { resources } = await client.listResources();
    const uris = resources.map((resource) => resource.uri);
    expect(uris).toContain(fileResourceUri('guidance.md'));
    expect(uris).toContain(fileResourceUri('profile.md'));
    expect(uris).toContain(blockResourceUri('profile.md', '学习目标/已有基础'));
    const file = await client.readResource({ uri: fileResourceUri('milestones.md') });
    expect((file.contents[0] as { text: string }).text.startsWith('# Raft 学习里程碑')).toBe(true);
    const block = await client.readResource({ uri: blockResourceUri('profile.md', '学习目标/已有基础') });
    expect((block.contents[0] as { text: string }).text).toContain('## 已有基础');
  });

  it('serves the compile preview', async () => {
    const preview = await client.readResource({ uri: 'ctxloom://preview' });
    expect((preview.contents[0] as { text: string }).text).toMatch(/^history\s+[\d,]+/mu);
  });

  it('runs a turn with send_message: the same engine as the chat, stored, every call logged', async () => {
    const prompt = await client.getPrompt({ name: 'context', arguments: { query: 'What is a term?' } });
    const next = Number(/: (\d+) tokens$/u.exec(prompt.description ?? '')?.[1]);
    const result = (await client.callTool({
      name: 'send_message',
      arguments: { text: 'What is a term?', messageId: 'mcp-1' },
    })) as unknown as {
      isError?: boolean;
      structuredContent: { answer: string; userMessageId: string; calls: { totalTokens: number }[] };
    };
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.userMessageId).toBe('mcp-1');
    expect(result.structuredContent.answer.length).toBeGreaterThan(0);
    expect(result.structuredContent.calls.length).toBeGreaterThanOrEqual(1);
    // Call 1 of the turn is exactly the preview with this message as its query.
    expect(result.structuredContent.calls[0]?.totalTokens).toBe(next);
    const messages = JSON.parse(await readFile(join(root, 'raft-consensus', 'messages.json'), 'utf8')) as {
      id: string;
    }[];
    expect(messages.filter((message) => message.id === 'mcp-1')).toHaveLength(1);
    const again = (await client.callTool({
      name: 'send_message',
      arguments: { text: 'What is a term?', messageId: 'mcp-1' },
    })) as { isError?: boolean; content: { text: string }[] };
    expect(again.isError).toBe(true);
    expect(again.content[0]?.text).toMatch(/conflict/);
    // A bad argument is refused by the schema and runs nothing.
    const stored = async () => (await readFile(join(root, 'raft-consensus', 'messages.json'), 'utf8')).length;
    const before = await stored();
    const bad = (await client.callTool({
      name: 'send_message',
      arguments: { text: '', messageId: '../x' },
    })) as unknown as { isError?: boolean; content: { text: string }[] };
    expect(bad.isError).toBe(true);
    expect(bad.content[0]?.text).toMatch(/text|messageId/);
    expect(await stored()).toBe(before);
    // A misspelt argument is refused too: ignored, a retry with "messageID" would run a second turn.
    const misspelt = (await client.callTool({
      name: 'send_message',
      arguments: { text: 'What is a term?', messageID: 'mcp-1' },
    })) as unknown as { isError?: boolean; content: { text: string }[] };
    expect(misspelt.isError).toBe(true);
    expect(misspelt.content[0]?.text).toMatch(/Unrecognized key.*messageID/su);
    expect(await stored()).toBe(before);
    const command = (await client.callTool({
      name: 'send_message',
      arguments: { text: '/compress' },
    })) as unknown as {
      structuredContent: { answer: string; calls: unknown[] };
    };
    expect(command.structuredContent.answer).toMatch(/^\/compress: context \d+ → \d+ tokens/);
    expect(command.structuredContent.calls).toEqual([]);
  });

  it('refuses a send_message id of the reserved layer: namespace in its schema, with the engine’s reason, storing nothing', async () => {
    const { tools } = await client.listTools();
    const sendMessage = tools.find((tool) => tool.name === 'send_message');
    const idSchema = sendMessage?.inputSchema.properties?.messageId as { pattern?: string } | undefined;
    // What a client reads: the advertised pattern already excludes the namespace.
    const pattern = new RegExp(idSchema?.pattern ?? '');
    expect(pattern.test('mcp-1')).toBe(true);
    expect(pattern.test('layer:system')).toBe(false);
    const stored = async () => await readFile(join(root, 'raft-consensus', 'messages.json'), 'utf8');
    const before = await stored();
    const reserved = (await client.callTool({
      name: 'send_message',
      arguments: { text: 'What is a term?', messageId: 'layer:x' },
    })) as unknown as { isError?: boolean; content: { text: string }[] };
    expect(reserved.isError).toBe(true);
    expect(reserved.content[0]?.text).toContain(
      'message id "layer:x" is reserved: ids starting with "layer:" name the layer messages ctxloom composes',
    );
    expect(reserved.content[0]?.text).toContain('messageId');
    expect(await stored()).toBe(before);
  });
});
