import type { Embedder } from '../../src/retrieval/embedder.ts';

/** An {@link Embedder} that embeds each distinct text once and times the real calls. */
export interface CachedEmbedder extends Embedder {
  /** Texts actually sent to the wrapped embedder. */
  readonly embeddedTexts: number;
  /** Wall time spent inside the wrapped embedder, ms. */
  readonly embedMs: number;
}

/**
 * Memoises `embedder` by text, so the ranking and the packing passes (and their rebuilt
 * indexes) reuse one embedding per turn and per question instead of re-running the model.
 * The vectors are the model's own; only repeated work is skipped.
 */
export function cacheEmbedder(embedder: Embedder): CachedEmbedder {
  const vectors = new Map<string, Float32Array>();
  let embeddedTexts = 0;
  let embedMs = 0;
  return {
    name: embedder.name,
    dimensions: embedder.dimensions,
    get embeddedTexts() {
      return embeddedTexts;
    },
    get embedMs() {
      return embedMs;
    },
    async embed(texts, options) {
      const missing = [...new Set(texts.filter((text) => !vectors.has(text)))];
      if (missing.length > 0) {
        const started = performance.now();
        const embedded = await embedder.embed(missing, options);
        embedMs += performance.now() - started;
        embeddedTexts += missing.length;
        for (const [position, text] of missing.entries()) {
          vectors.set(text, embedded[position] as Float32Array);
        }
      }
      return texts.map((text) => vectors.get(text) as Float32Array);
    },
  };
}
