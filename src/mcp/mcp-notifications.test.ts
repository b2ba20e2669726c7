import { appendFile, cp, mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { blockResourceUri, fileResourceUri } from './create-workspace-mcp-server.ts';

const example = fileURLToPath(new URL('../../examples/notebook', import.meta.url));
const cli = fileURLToPath(new URL('../cli/bin.ts', import.meta.url));
let root: string;
let session: string;
let client: Client;
let listChanged: number;
let updated: string[];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ctxloom-mcp-notify-'));
  await cp(example, root, { recursive: true });
  session = join(root, 'raft-consensus');
  client = new Client({ name: 'ctxloom-notify-test', version: '1.0.0' });
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
    listChanged++;
  });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    updated.push(notification.params.uri);
  });
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
beforeEach(() => {
  listChanged = 0;
  updated = [];
});

const listedUris = async () => (await client.listResources()).resources.map((resource) => resource.uri);

describe('ctxloom mcp notifications (the SDK client over stdio)', () => {
  it('advertises subscribe and listChanged on resources', () => {
    expect(client.getServerCapabilities()?.resources).toMatchObject({ subscribe: true, listChanged: true });
  });

  it('tells of a file created and deleted outside the server', async () => {
    await writeFile(join(session, 'outside.md'), '# 外部笔记\n\n编辑器写的。\n');
    await expect.poll(() => listChanged, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(await listedUris()).toContain(fileResourceUri('outside.md'));
    listChanged = 0;
    await unlink(join(session, 'outside.md'));
    await expect.poll(() => listChanged, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(await listedUris()).not.toContain(fileResourceUri('outside.md'));
  });

  it('tells of a block added to a file, and sends updated for the subscribed file and the preview', async () => {
    const uri = fileResourceUri('guidance.md');
    // The server sends a batch's updates in the order of subscription, each its own message on
    // stdio: the preview, subscribed last, arrives last, so once it is here an update for
    // milestones.md (subscribed before it) would be here too.
    await client.subscribeResource({ uri });
    await client.subscribeResource({ uri: fileResourceUri('milestones.md') });
    await client.subscribeResource({ uri: 'ctxloom://preview' });
    await appendFile(join(session, 'guidance.md'), '\n## 新增小节\n\n外部加的一节。\n');
    await expect.poll(() => listChanged, { timeout: 10_000 }).toBeGreaterThan(0);
    await expect
      .poll(() => updated, { timeout: 10_000 })
      .toEqual(expect.arrayContaining([uri, 'ctxloom://preview']));
    expect(updated).not.toContain(fileResourceUri('milestones.md'));
    expect(await listedUris()).toContain(blockResourceUri('guidance.md', '教学指南：Raft 共识/新增小节'));
  });

  it('sends updated but no list change for an edit that keeps the blocks', async () => {
    const uri = fileResourceUri('milestones.md');
    await client.subscribeResource({ uri });
    await appendFile(join(session, 'milestones.md'), '\n补一行说明。\n');
    await expect.poll(() => updated, { timeout: 10_000 }).toContain(uri);
    expect(listChanged).toBe(0);
    await client.unsubscribeResource({ uri });
  });

  it('sends no list change for a model call the files store logs (the call log is not listed)', async () => {
    const uri = fileResourceUri('milestones.md');
    await client.subscribeResource({ uri });
    await mkdir(join(session, 'calls'), { recursive: true });
    await writeFile(join(session, 'calls', '000000.json'), '{"call":{"id":"c-1"}}');
    // An edit after it, to know the watcher has gone past the record.
    await appendFile(join(session, 'milestones.md'), '\n又一行。\n');
    await expect.poll(() => updated, { timeout: 10_000 }).toContain(uri);
    expect(listChanged).toBe(0);
    await client.unsubscribeResource({ uri });
  });

  it('tells of a global file changed in the workspace root', async () => {
    const uri = fileResourceUri('profile.md');
    await client.subscribeResource({ uri });
    await appendFile(join(root, 'profile.md'), '\n## 新目标\n\n读完 etcd/raft。\n');
    await expect.poll(() => updated, { timeout: 10_000 }).toContain(uri);
    await expect.poll(() => listChanged, { timeout: 10_000 }).toBeGreaterThan(0);
  });

  it('tells of a file its own write_file adds, once', async () => {
    await client.callTool({ name: 'write_file', arguments: { path: 'notes/new.md', content: '# 新\n' } });
    await expect.poll(() => listChanged, { timeout: 10_000 }).toBe(1);
    expect(await listedUris()).toContain(fileResourceUri('notes/new.md'));
  });
});
