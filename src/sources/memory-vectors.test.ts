import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { Embedder } from '../retrieval/embedder.ts';
import { type MemoryStoreOptions, openMemoryStore } from './memory-store.ts';
import type { MemoryStore } from './memory-view.ts';
import { createPostgresMemoryStore } from './postgres-memory-store.ts';

const directories: string[] = [];
const url = process.env.CTXLOOM_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `ctxloom_vectors_${process.pid}_${Date.now().toString(36)}`;
const pool = new pg.Pool({ connectionString: url, max: 4 });
afterAll(async () => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await pool.end();
});

type StoreOptions = Omit<MemoryStoreOptions, 'path' | 'database'>;
let sessions = 0;
/** Each backend opens stores at one fresh location per test (`place`); sessions keep tests apart. */
const backends = [
  {
    name: 'SQLite',
    place() {
      const directory = mkdtempSync(join(tmpdir(), 'ctxloom-vectors-'));
      directories.push(directory);
      const path = join(directory, 'memory.db');
      return async (options: StoreOptions): Promise<MemoryStore> => openMemoryStore({ ...options, path });
    },
  },
  {
    name: 'PostgreSQL',
    place() {
      return (options: StoreOptions) => createPostgresMemoryStore({ ...options, pool, schema });
    },
  },
];

// Offline stand-in for a semantic model: "car" and "automobile" share a dimension.
function topicEmbedder(name = 'topics'): Embedder & { calls: number; texts: number } {
  const topics = [
    ['car', 'automobile', 'vehicle'],
    ['coffee', 'espresso'],
    ['rain', 'weather'],
  ];
  const embedder = {
    name,
    dimensions: topics.length + 1,
    calls: 0,
    texts: 0,
    embed: async (texts: readonly string[]) => {
      embedder.calls++;
      embedder.texts += texts.length;
      return texts.map((text) =>
        Float32Array.from([
          ...topics.map((words) => (words.some((word) => text.toLowerCase().includes(word)) ? 1 : 0)),
          0.05,
        ]),
      );
    },
  };
  return embedder;
}

const messages = [
  { id: '1', role: 'user' as const, content: 'My automobile broke down on the highway.' },
  { id: '2', role: 'assistant' as const, content: 'Sorry to hear that. Need a tow?' },
  { id: '3', role: 'user' as const, content: 'I had an espresso this morning.' },
];

describe.each(backends)('memory L4 with an embedder on $name', (backend) => {
  it('recalls by meaning where no word matches', async () => {
    const memory = await backend.place()({
      agentId: 'a',
      sessionId: `s${++sessions}`,
      embedder: topicEmbedder(),
      indexContext: 0,
    });
    await memory.append(messages);
    const candidates = await memory.recallSource().recall({ query: 'problems with my car', limit: 3 });
    expect(candidates[0]?.id).toBe('1');
    expect(candidates.every((candidate) => candidate.vectorScore >= 0 && candidate.vectorScore <= 1)).toBe(
      true,
    );
  });

  it('embeds each message once, lazily, and reloads stored vectors after reopen', async () => {
    const open = backend.place();
    const sessionId = `s${++sessions}`;
    const embedder = topicEmbedder();
    const memory = await open({ agentId: 'a', sessionId, embedder });
    await memory.append(messages);
    expect(embedder.texts).toBe(0);
    await memory.recallSource().recall({ query: 'coffee', limit: 2 });
    await memory.recallSource().recall({ query: 'weather', limit: 2 });
    expect(embedder.texts).toBe(messages.length + 2);
    await memory.close();

    const reopened = await open({ agentId: 'a', sessionId, embedder });
    const [hit] = await reopened.recallSource().recall({ query: 'coffee', limit: 1 });
    expect(hit?.id).toBe('3');
    expect(embedder.texts).toBe(messages.length + 3);
    await reopened.close();

    const otherModel = topicEmbedder('other-model');
    const switched = await open({ agentId: 'a', sessionId, embedder: otherModel });
    await switched.recallSource().recall({ query: 'coffee', limit: 1 });
    expect(otherModel.texts).toBe(messages.length + 1);
    await switched.close();
  });
});
