import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_MCP_MESSAGE_BYTES } from './limited-stdio-server-transport.ts';

const example = fileURLToPath(new URL('../../examples/notebook', import.meta.url));
const cli = fileURLToPath(new URL('../cli/bin.ts', import.meta.url));
let root: string;
let client: Client;
let closed = false;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ctxloom-mcp-large-'));
  await cp(example, root, { recursive: true });
  client = new Client({ name: 'ctxloom-test', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, 'mcp', root, '--session', 'raft-consensus'],
    stderr: 'pipe',
  });
  await client.connect(transport);
  client.onclose = () => {
    closed = true;
  };
});
afterAll(async () => {
  await client.close();
  await rm(root, { recursive: true, force: true });
});

const readMilestones = async () =>
  (await client.callTool({
    name: 'read_file',
    arguments: { path: 'milestones.md', startLine: 1, endLine: 1 },
  })) as {
    content: Array<{ text: string }>;
  };

describe('ctxloom mcp and large inputs (the SDK client over stdio)', () => {
  it('answers a 12 MB write_file with the typed too-large error of the write limit and keeps serving', async () => {
    const content = 'x'.repeat(12 * 1024 * 1024);
    const result = (await client.callTool({
      name: 'write_file',
      arguments: { path: 'big.md', content },
    })) as {
      isError?: boolean;
      content: Array<{ text: string }>;
    };
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toMatch(/too-large.*exceeds the limit of 8388608/su);
    expect((await readMilestones()).content[0]?.text).toContain('Raft');
    expect(closed).toBe(false);
  }, 60_000);

  it('refuses a message over MAX_MCP_MESSAGE_BYTES with a JSON-RPC error naming the limit, unread, and keeps serving', async () => {
    const content = 'y'.repeat(MAX_MCP_MESSAGE_BYTES + 1024);
    const error = await client.callTool({ name: 'write_file', arguments: { path: 'huge.md', content } }).then(
      () => undefined,
      (caught: unknown) => caught as { code: number; message: string; data?: Record<string, unknown> },
    );
    expect(error?.code).toBe(-32600);
    expect(error?.message).toContain(
      `over the limit of ${MAX_MCP_MESSAGE_BYTES} bytes (MAX_MCP_MESSAGE_BYTES)`,
    );
    expect(error?.data).toMatchObject({ code: 'too-large', limitBytes: MAX_MCP_MESSAGE_BYTES });
    expect((await readMilestones()).content[0]?.text).toContain('Raft');
    expect(closed).toBe(false);
  }, 60_000);
});
