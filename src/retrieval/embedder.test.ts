import { MockEmbeddingModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { CtxloomError } from '../core/index.ts';
import { createAiSdkEmbedder } from './embedder.ts';

describe('createAiSdkEmbedder', () => {
  it('embeds through embedMany and returns Float32Arrays in order', async () => {
    const model = new MockEmbeddingModelV4({
      doEmbed: async ({ values }) => ({
        embeddings: values.map((value) => [value.length, 1]),
        warnings: [],
      }),
    });
    const embedder = createAiSdkEmbedder({ model, dimensions: 2 });
    const vectors = await embedder.embed(['a', 'abc']);
    expect(vectors.map((vector) => [...vector])).toEqual([
      [1, 1],
      [3, 1],
    ]);
    expect(vectors[0]).toBeInstanceOf(Float32Array);
    expect(embedder.name).toBe('mock-provider:mock-model-id');
  });

  it('reports a provider failure or a dimension mismatch as model-error', async () => {
    const failing = new MockEmbeddingModelV4({
      doEmbed: async () => {
        throw new Error('boom');
      },
    });
    await expect(createAiSdkEmbedder({ model: failing, dimensions: 2 }).embed(['x'])).rejects.toSatisfy(
      (error) => CtxloomError.is(error, 'model-error'),
    );
    const wrong = new MockEmbeddingModelV4({
      doEmbed: async () => ({ embeddings: [[1, 2, 3]], warnings: [] }),
    });
    await expect(createAiSdkEmbedder({ model: wrong, dimensions: 2 }).embed(['x'])).rejects.toThrow(
      /3 dimensions/,
    );
  });

  it('makes no call for an empty batch', async () => {
    const model = new MockEmbeddingModelV4({ doEmbed: async () => ({ embeddings: [], warnings: [] }) });
    expect(await createAiSdkEmbedder({ model, dimensions: 2 }).embed([])).toEqual([]);
    expect(model.doEmbedCalls).toHaveLength(0);
  });
});
