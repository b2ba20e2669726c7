import { describe, expect, it } from 'vitest';
import type { CollectRequest, ContextSource, Message, TokenCounter } from '../core/index.ts';
import { createCharCounter } from './char-counter.ts';

/** Options of {@link describeContextSourceConformance}. */
export interface ContextSourceConformanceOptions {
  /** Queries that should return at least one block (e.g. words of the indexed content). */
  queries: readonly string[];
  /** History handed to the source; default a short two-turn exchange. */
  history?: readonly Message[];
  /** Counter used for the requests; default the character counter. */
  counter?: TokenCounter;
  /** Budgets (tokens) tried; default `[0, 64, 512, 100_000]`. */
  budgets?: readonly number[];
}

const DEFAULT_HISTORY: Message[] = [
  { id: 'h1', role: 'user', content: 'hello' },
  { id: 'h2', role: 'assistant', content: 'hi, how can I help?' },
];

/**
 * The behaviour every `ContextSource` must have, as a Vitest suite: blocks fill the
 * source's layer and name it, ids are unique, tokens are counted with the request's
 * counter, priorities lie in 0..1, the budget is respected, the same request gives the same
 * blocks, and an empty or punctuation-only query returns a result, not an exception.
 * @example describeContextSourceConformance('UnifiedRetrievalSource', () => createSource(), { queries: ['raft leader'] });
 */
export function describeContextSourceConformance(
  name: string,
  factory: () => ContextSource | Promise<ContextSource>,
  options: ContextSourceConformanceOptions,
): void {
  const counter = options.counter ?? createCharCounter();
  const budgets = options.budgets ?? [0, 64, 512, 100_000];
  const request = (query: string): CollectRequest => ({
    query,
    history: options.history ?? DEFAULT_HISTORY,
    counter,
  });
  const collect = async (query: string, maxTokens: number) => {
    const source = await factory();
    return { source, blocks: await source.collect(request(query), { maxTokens, source: source.name }) };
  };

  describe(`ContextSource conformance: ${name}`, () => {
    it('has a name, a layer and a priority within 0..1', async () => {
      const source = await factory();
      expect(source.name.length).toBeGreaterThan(0);
      expect(source.layer === 'history' || source.layer.endsWith('__context')).toBe(true);
      expect(source.priority).toBeGreaterThanOrEqual(0);
      expect(source.priority).toBeLessThanOrEqual(1);
    });

    it('returns blocks for its own layer, named after it, with unique ids and sane priorities', async () => {
      for (const query of options.queries) {
        const { source, blocks } = await collect(query, 100_000);
        expect(blocks.length).toBeGreaterThan(0);
        expect(new Set(blocks.map((block) => block.id)).size).toBe(blocks.length);
        for (const block of blocks) {
          expect(block.layer).toBe(source.layer);
          expect(block.source.length).toBeGreaterThan(0);
          expect(block.priority).toBeGreaterThanOrEqual(0);
          expect(block.priority).toBeLessThanOrEqual(1);
          expect(block.fingerprint.length).toBeGreaterThan(0);
        }
      }
    });

    it('counts block tokens with the request counter', async () => {
      for (const query of options.queries) {
        const { blocks } = await collect(query, 100_000);
        for (const block of blocks) {
          if (block.layer === 'history') continue;
          expect(block.tokens).toBe(counter.countText(block.content));
        }
      }
    });

    it('stays within its budget', async () => {
      for (const query of options.queries) {
        for (const maxTokens of budgets) {
          const { blocks } = await collect(query, maxTokens);
          const used = blocks.reduce((sum, block) => sum + block.tokens, 0);
          expect(used).toBeLessThanOrEqual(maxTokens);
        }
      }
    });

    it('gives the same blocks for the same request', async () => {
      for (const query of options.queries) {
        const first = await collect(query, 512);
        const second = await collect(query, 512);
        expect(second.blocks.map((block) => [block.id, block.content])).toEqual(
          first.blocks.map((block) => [block.id, block.content]),
        );
      }
    });

    it('answers empty and punctuation-only queries without throwing', async () => {
      for (const query of ['', '   ', '?!…。，']) {
        const { blocks } = await collect(query, 512);
        expect(Array.isArray(blocks)).toBe(true);
      }
    });
  });
}
