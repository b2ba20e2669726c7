import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openWorkspace } from '../workspace/index.ts';
import { createWorkspaceMcpServer, fileResourceUri } from './create-workspace-mcp-server.ts';

const example = fileURLToPath(new URL('../../examples/notebook', import.meta.url));
let root: string;
let client: Client;
let listChanged: number;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ctxloom-mcp-protocol-'));
  await cp(example, root, { recursive: true });
  const server = createWorkspaceMcpServer({
    workspace: openWorkspace({ root }),
    sessionId: 'raft-consensus',
    // No watcher: these tests count what the server itself sends (mcp-notifications.test.ts covers the watcher).
    watch: false,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  client = new Client({ name: 'ctxloom-protocol-test', version: '1.0.0' });
  listChanged = 0;
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
    listChanged++;
  });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
});
afterEach(async () => {
  await client.close();
  await rm(root, { recursive: true, force: true });
});

/** The JSON-RPC error a request failed with. */
const rpcError = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as { code: number; message: string; data?: Record<string, unknown> },
  );

describe('the MCP server, driven by the SDK client in memory', () => {
  it('answers a missing resource with -32002 and a refused path with -32602, naming no server path', async () => {
    const cases: [string, number][] = [
      [fileResourceUri('missing.md'), -32002],
      ['ctxloom://nothing/here', -32002],
      ['ctxloom://files/..%2Fsessions.json', -32602],
      ['ctxloom://files/%E0%A4%A', -32602],
      ['ctxloom://blocks/profile.md/no-such-block-%F0%9F%A6%84', -32002],
      ['ctxloom://outline/..%2F..%2Fetc%2Fpasswd', -32602],
    ];
    for (const [uri, code] of cases) {
      const error = await rpcError(client.readResource({ uri }));
      expect(error?.code, uri).toBe(code);
      expect(JSON.stringify(error)).not.toContain(root);
    }
  });

  it('answers a failed resources/list with a typed error, like a failed read', async () => {
    expect((await client.listResources()).resources.length).toBeGreaterThan(0);
    await rm(join(root, 'raft-consensus'), { recursive: true, force: true });
    const error = await rpcError(client.listResources());
    expect(error?.code).toBe(-32002);
    expect(error?.data).toMatchObject({ code: 'not-found' });
    expect(JSON.stringify(error)).not.toContain(root);
  });

  it('returns typed tool errors with no server path, for raw file-system errors too', async () => {
    await symlink('loop', join(root, 'raft-consensus', 'loop'));
    for (const args of [
      { name: 'read_file', arguments: { path: 'loop/x.md' } },
      { name: 'write_file', arguments: { path: 'loop/x.md', content: 'x' } },
      { name: 'write_file', arguments: { path: 'guidance.md/x.md', content: 'x' } },
      { name: 'read_file', arguments: { path: 'notes' } },
    ]) {
      const result = (await client.callTool(args)) as { isError?: boolean; content: { text: string }[] };
      expect(result.isError, JSON.stringify(args)).toBe(true);
      expect(result.content[0]?.text).toMatch(/^error \[(path-escape|invalid-argument|not-found)\]/u);
      expect(result.content[0]?.text).not.toContain(root);
    }
    // Bad arguments: the SDK reports invalid params (-32602) as a tool error the model can fix.
    const invalid = (await client.callTool({ name: 'read_file', arguments: { path: 3 } })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    expect(invalid.isError).toBe(true);
    expect(invalid.content[0]?.text).toContain('-32602');
  });

  it('annotates every tool: read-only ones, and the destructive write_file', async () => {
    const { tools } = await client.listTools();
    const hints = Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]));
    for (const name of ['read_file', 'list_files', 'search', 'read_block']) {
      expect(hints[name]).toMatchObject({ readOnlyHint: true, idempotentHint: true });
    }
    expect(hints.write_file).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(hints.dismiss_memory).toMatchObject({ readOnlyHint: false, destructiveHint: false });
  });

  it('sends resources/list_changed when a write adds a file, not when it edits one', async () => {
    await client.callTool({ name: 'write_file', arguments: { path: 'notes/new.md', content: '# 新\n' } });
    await expect.poll(() => listChanged).toBe(1);
    await client.callTool({ name: 'write_file', arguments: { path: 'notes/new.md', content: '# 改\n' } });
    await client.callTool({ name: 'read_file', arguments: { path: 'notes/new.md' } });
    expect(listChanged).toBe(1);
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri)).toContain(fileResourceUri('notes/new.md'));
  });

  it('does not list the blocks of messages.json or memory.json as resources', async () => {
    const { resources } = await client.listResources();
    const blocks = resources.filter((resource) => resource.uri.startsWith('ctxloom://blocks/'));
    expect(blocks.length).toBeGreaterThan(0);
    for (const file of ['messages.json', 'memory.json']) {
      expect(blocks.some((resource) => resource.uri.startsWith(`ctxloom://blocks/${file}/`))).toBe(false);
      expect(resources.map((resource) => resource.uri)).toContain(fileResourceUri(file));
    }
  });

  it('lists no call-log record, so the log of a long session leaves room for the blocks of every file', async () => {
    const record = await readFile(join(example, 'raft-consensus', 'messages.json'), 'utf8');
    await mkdir(join(root, 'raft-consensus', 'calls'));
    for (let call = 0; call < 200; call++) {
      const name = `${String(call).padStart(6, '0')}.json`;
      await writeFile(
        join(root, 'raft-consensus', 'calls', name),
        JSON.stringify({ call: { id: call, record } }),
      );
    }
    const uris = (await client.listResources()).resources.map((resource) => resource.uri);
    expect(uris.filter((uri) => uri.includes('calls'))).toEqual([]);
    for (const file of ['ground-truth.md', 'guidance.md', 'profile.md'])
      expect(
        uris.some((uri) => uri.startsWith(`ctxloom://blocks/${file}/`)),
        file,
      ).toBe(true);
    // Still readable by its URI.
    const read = await client.readResource({ uri: fileResourceUri('calls/000007.json') });
    expect(read.contents[0]).toMatchObject({ text: expect.stringContaining('"id":7') });
  });

  it('serves the compiled context as the prompt "context"', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toContain('context');
    const prompt = await client.getPrompt({ name: 'context', arguments: { query: '选举限制是什么？' } });
    const text = (prompt.messages[0]?.content as { text?: string } | undefined)?.text ?? '';
    expect(prompt.messages[0]?.role).toBe('user');
    expect(text).toContain('# 角色 / Role');
    expect(text).toContain('<knowledge__context');
    expect(text).toContain('选举限制是什么？');
    expect(prompt.description).toMatch(/\d+ tokens/u);
  });
});
