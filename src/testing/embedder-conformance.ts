import { describe, expect, it } from 'vitest';
import type { Embedder } from '../retrieval/embedder.ts';

const TEXTS = ['Raft elects a leader per term.', '领导者负责复制日志。', 'emoji 🙂 and mixed 中文 text', ''];

/**
 * The behaviour every `Embedder` must have, as a Vitest suite: one vector per text, in
 * order, each of `dimensions` finite numbers; an empty batch embeds to nothing; the same text
 * gives the same vector; CJK, emoji and empty strings are accepted.
 * @example describeEmbedderConformance('openai', () => createAiSdkEmbedder({ model, dimensions: 1536 }));
 */
export function describeEmbedderConformance(name: string, factory: () => Embedder | Promise<Embedder>): void {
  describe(`Embedder conformance: ${name}`, () => {
    it('returns one vector of the declared length per text, in order', async () => {
      const embedder = await factory();
      const vectors = await embedder.embed(TEXTS);
      expect(vectors).toHaveLength(TEXTS.length);
      for (const vector of vectors) {
        expect(vector).toBeInstanceOf(Float32Array);
        expect(vector.length).toBe(embedder.dimensions);
        for (const value of vector) expect(Number.isFinite(value)).toBe(true);
      }
    });

    it('embeds an empty batch to an empty list', async () => {
      const embedder = await factory();
      expect(await embedder.embed([])).toEqual([]);
    });

    it('gives the same vector for the same text, alone or in a batch', async () => {
      const embedder = await factory();
      const [alone] = await embedder.embed([TEXTS[1] as string]);
      const batch = await embedder.embed(TEXTS);
      expect(Array.from(alone ?? [])).toEqual(Array.from(batch[1] ?? []));
    });

    it('has a name and a positive dimension', async () => {
      const embedder = await factory();
      expect(embedder.name.length).toBeGreaterThan(0);
      expect(Number.isInteger(embedder.dimensions) && embedder.dimensions > 0).toBe(true);
    });
  });
}
