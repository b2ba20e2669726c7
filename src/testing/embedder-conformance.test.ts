import { MockEmbeddingModelV4 } from 'ai/test';
import { createAiSdkEmbedder } from '../retrieval/embedder.ts';
import { describeEmbedderConformance } from './embedder-conformance.ts';

// A deterministic stand-in model (character histogram over 8 buckets) behind the real AI SDK adapter.
const model = new MockEmbeddingModelV4({
  doEmbed: async ({ values }) => ({
    embeddings: values.map((value) => {
      const vector = new Array<number>(8).fill(0);
      for (const char of value) {
        const bucket = (char.codePointAt(0) ?? 0) % 8;
        vector[bucket] = (vector[bucket] ?? 0) + 1;
      }
      return vector;
    }),
    warnings: [],
  }),
});

describeEmbedderConformance('createAiSdkEmbedder (AI SDK embedMany)', () =>
  createAiSdkEmbedder({ model, dimensions: 8 }),
);
