import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Embedder } from '../retrieval/embedder.ts';
import { openMemoryStore } from './memory-store.ts';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

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

describe('memory L4 with an embedder', () => {
  it('recalls by meaning where no word matches', async () => {
    const memory = openMemoryStore({
      agentId: 'a',
      sessionId: 's',
      embedder: topicEmbedder(),
      indexContext: 0,
    });
    memory.append(messages);
    const candidates = await memory.recallSource().recall({ query: 'problems with my car', limit: 3 });
    expect(candidates[0]?.id).toBe('1');
    expect(candidates.every((candidate) => candidate.vectorScore >= 0 && candidate.vectorScore <= 1)).toBe(
      true,
    );
  });

  it('embeds each message once, lazily, and reloads stored vectors after reopen', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'ctxloom-vectors-'));
    directories.push(directory);
    const path = join(directory, 'memory.db');
    const embedder = topicEmbedder();
    const memory = openMemoryStore({ path, agentId: 'a', sessionId: 's', embedder });
    memory.append(messages);
    expect(embedder.texts).toBe(0);
    await memory.recallSource().recall({ query: 'coffee', limit: 2 });
    await memory.recallSource().recall({ query: 'weather', limit: 2 });
    expect(embedder.texts).toBe(messages.length + 2);
    memory.close();

    const reopened = openMemoryStore({ path, agentId: 'a', sessionId: 's', embedder });
    const [hit] = await reopened.recallSource().recall({ query: 'coffee', limit: 1 });
    expect(hit?.id).toBe('3');
    expect(embedder.texts).toBe(messages.length + 3);
    reopened.close();

    const otherModel = topicEmbedder('other-model');
    const switched = openMemoryStore({ path, agentId: 'a', sessionId: 's', embedder: otherModel });
    await switched.recallSource().recall({ query: 'coffee', limit: 1 });
    expect(otherModel.texts).toBe(messages.length + 1);
    switched.close();
  });
});
