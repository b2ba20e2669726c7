import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteSaver } from '../runtime/checkpoint/sqlite-saver.ts';
import { openWorkspace } from '../workspace/index.ts';
import { createCheckpointSessionStore } from './checkpoint-session-store.ts';
import { copySession } from './copy-session.ts';
import { createFileSessionStore } from './file-session-store.ts';
import type { CallRecord } from './session-store.ts';

const directory = mkdtempSync(join(tmpdir(), 'ctxloom-copy-session-'));
const workspace = openWorkspace({ root: directory });
const saver = new SqliteSaver({ path: join(directory, 'sessions.db'), durability: 'normal' });
afterAll(async () => {
  await saver.close();
  rmSync(directory, { recursive: true, force: true });
});

const call = (id: string): CallRecord => ({
  id,
  turnId: 'u1',
  step: 0,
  at: '2026-01-01T00:00:00.000Z',
  model: 'offline',
  report: { totalTokens: 3 } as unknown as CallRecord['report'],
  messageFingerprints: ['user:abc'],
});

describe('copySession', () => {
  it('moves a workspace session into checkpoints unchanged, and refuses a non-empty target', async () => {
    await workspace.sandbox.writeText('demo/context-config.json', '{}\n');
    const files = createFileSessionStore({ workspace });
    await files.appendMessages('demo', [
      { id: 'u1', role: 'user', content: 'hello', metadata: { createdAt: '2026-01-01T00:00:00.000Z' } },
      { id: 'a1', role: 'assistant', content: [{ type: 'text', text: 'hi' }] },
      { id: 'u2', role: 'user', content: 'more' },
    ]);
    await files.appendCuration('demo', [
      { id: 'e1', type: 'dismiss', targetMessageId: 'a1', by: 'user', at: '2026-01-01T00:00:00.000Z' },
    ]);
    const summary = {
      text: 'Earlier: greetings.',
      fromMessageId: 'u1',
      throughMessageId: 'a1',
      coveredCount: 2,
      summarizer: 'extractive (offline)',
      createdAt: '2026-01-01T00:00:00.000Z',
    };
    await files.saveCompression(
      'demo',
      { summary, structured: null, processedThrough: { requirements: null, artifacts: null } },
      { expectedRevision: 0 },
    );
    await files.appendCall('demo', call('c1'));
    await files.appendCall('demo', call('c2'));

    const checkpoints = createCheckpointSessionStore({ saver, kind: 'sqlite' });
    expect(await copySession({ from: files, to: checkpoints, sessionId: 'demo' })).toEqual({
      messages: 3,
      curation: 1,
      calls: 2,
      compressionRevision: 1,
    });
    expect(await checkpoints.load('demo')).toEqual(await files.load('demo'));
    expect(await checkpoints.listCalls('demo')).toEqual(await files.listCalls('demo'));
    await expect(copySession({ from: files, to: checkpoints, sessionId: 'demo' })).rejects.toMatchObject({
      code: 'conflict',
    });
  });

  it('leaves the target empty when a write fails midway', async () => {
    await workspace.sandbox.writeText('half/context-config.json', '{}\n');
    const files = createFileSessionStore({ workspace });
    await files.appendMessages('half', [{ id: 'u1', role: 'user', content: 'hello' }]);
    await files.appendCall('half', call('c1'));
    await files.appendCall('half', call('c2'));
    const checkpoints = createCheckpointSessionStore({ saver, kind: 'sqlite' });
    let appended = 0;
    const failing = {
      ...checkpoints,
      async appendCall(sessionId: string, record: CallRecord) {
        if (++appended === 2) throw new Error('disk full');
        await checkpoints.appendCall(sessionId, record);
      },
    };
    await expect(copySession({ from: files, to: failing, sessionId: 'half' })).rejects.toThrow('disk full');
    const left = await checkpoints.load('half');
    expect(left.messages).toEqual([]);
    expect(await checkpoints.listCalls('half')).toEqual([]);
    // Nothing half-copied blocks a retry.
    expect((await copySession({ from: files, to: checkpoints, sessionId: 'half' })).calls).toBe(2);
  });
});
