import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { SqliteSaver } from '../runtime/checkpoint/sqlite-saver.ts';
import { createCheckpointSessionStore } from '../session/index.ts';
import type { SessionChange } from '../workspace/watch-sessions.ts';
import { observeSessionStore } from './observe-session-store.ts';

const directory = mkdtempSync(join(tmpdir(), 'ctxloom-observe-'));
const path = join(directory, 'sessions.db');
// Two savers on one file: two writers as two server processes would be.
const here = new SqliteSaver({ path, durability: 'normal' });
const there = new SqliteSaver({ path, durability: 'normal' });
afterAll(async () => {
  await here.close();
  await there.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('observeSessionStore on a checkpoint store', () => {
  it('tells a watcher about another writer’s writes, and about its own at once', async () => {
    const observed = observeSessionStore(createCheckpointSessionStore({ saver: here, kind: 'sqlite' }), {
      pollMs: 100,
    });
    const other = createCheckpointSessionStore({ saver: there, kind: 'sqlite' });
    const changes: SessionChange[] = [];
    const stop = observed.subscribe('s1', (change) => changes.push(change));
    await observed.store.appendMessages('s1', [{ id: 'u1', role: 'user', content: 'hi' }]);
    expect(changes).toEqual([{ paths: ['messages.json'] }]);

    await other.appendMessages('s1', [{ id: 'u2', role: 'user', content: 'from the other process' }]);
    await vi.waitFor(() => expect(changes.length).toBeGreaterThanOrEqual(2), { timeout: 10_000 });
    expect(changes.at(-1)).toEqual({ paths: ['messages.json', 'memory.json', 'compression.json'] });
    expect((await observed.store.load('s1')).messages.map((message) => message.id)).toEqual(['u1', 'u2']);
    stop();
  });
});
