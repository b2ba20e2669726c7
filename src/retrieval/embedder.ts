import { type EmbeddingModel, embedMany } from 'ai';
import { CtxloomError } from '../core/index.ts';

/**
 * Turns texts into vectors. Any AI SDK embedding model fits through
 * {@link createAiSdkEmbedder}; tests and offline setups may implement it directly.
 */
export interface Embedder {
  /** Shown in reports and saved with a vector index, e.g. `openai:text-embedding-3-small`. */
  readonly name: string;
  /** Vector length every call returns. */
  readonly dimensions: number;
  /** One vector per text, in order. Rejects with `model-error` when the provider fails. */
  embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<Float32Array[]>;
}

/** Options of {@link createAiSdkEmbedder}. */
export interface AiSdkEmbedderOptions {
  /** An AI SDK embedding model (`openai.embedding('text-embedding-3-small')`, …). */
  model: EmbeddingModel;
  /** Vector length the model returns (checked on every call). */
  dimensions: number;
  /** Name for reports; default the model id. */
  name?: string;
  /** Parallel requests when the SDK splits a batch; default 2. */
  maxParallelCalls?: number;
}

/**
 * An {@link Embedder} over the AI SDK's `embedMany` (batching and retries are the SDK's).
 * @example
 * const embedder = createAiSdkEmbedder({ model: openai.embedding('text-embedding-3-small'), dimensions: 1536 });
 */
export function createAiSdkEmbedder(options: AiSdkEmbedderOptions): Embedder {
  const name =
    options.name ??
    (typeof options.model === 'string'
      ? options.model
      : `${options.model.provider}:${options.model.modelId}`);
  return {
    name,
    dimensions: options.dimensions,
    async embed(texts, callOptions = {}) {
      if (texts.length === 0) return [];
      let embeddings: number[][];
      try {
        const result = await embedMany({
          model: options.model,
          values: [...texts],
          maxParallelCalls: options.maxParallelCalls ?? 2,
          ...(callOptions.signal === undefined ? {} : { abortSignal: callOptions.signal }),
        });
        embeddings = result.embeddings;
      } catch (error) {
        throw new CtxloomError({
          code: 'model-error',
          message: `embedding with ${name} failed`,
          cause: error,
        });
      }
      return embeddings.map((embedding, position) => {
        if (embedding.length !== options.dimensions) {
          throw new CtxloomError({
            code: 'model-error',
            message: `${name} returned ${embedding.length} dimensions, expected ${options.dimensions}`,
            path: `embeddings[${position}]`,
          });
        }
        return Float32Array.from(embedding);
      });
    },
  };
}
