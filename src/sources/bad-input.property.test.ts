import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../core/index.ts';
import { createL1RecentSource } from './l1-recent-source.ts';
import { openMemoryStore } from './memory-store.ts';
import { openSharedPool } from './shared-pool.ts';
import { createSharedPoolSource } from './shared-pool-source.ts';
import { makeBudget, makeRequest } from './test-request.test-support.ts';
import { createUnifiedRetrievalSource } from './unified-retrieval-source.ts';

const nasty = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 120 }),
  fc.string({
    unit: fc.constantFrom('的', 'the', ' ', '。', '😀', '\uD800', '\uDFFF', 'Ａ', '\n'),
    maxLength: 60,
  }),
);

describe('bad input in sources', () => {
  it('memory stores, recalls and budgets arbitrary text, lone surrogates included', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(nasty, { minLength: 1, maxLength: 6 }),
        nasty,
        fc.integer({ min: 0, max: 400 }),
        async (texts, query, maxTokens) => {
          const memory = openMemoryStore({ agentId: 'a', sessionId: 's' });
          const messages: Message[] = texts.map((content, position) => ({
            id: `m${position}`,
            role: position % 2 === 0 ? 'user' : 'assistant',
            content,
          }));
          await memory.append(messages);
          expect(memory.entries().map((entry) => entry.message.content)).toEqual(texts.map((text) => text));
          const recent = await createL1RecentSource({ memory }).collect(
            makeRequest(query),
            makeBudget(maxTokens),
          );
          const retrieved = await createUnifiedRetrievalSource({ memory }).collect(
            makeRequest(query),
            makeBudget(maxTokens),
          );
          for (const blocks of [recent, retrieved]) {
            expect(blocks.reduce((sum, block) => sum + block.tokens, 0)).toBeLessThanOrEqual(maxTokens);
          }
          await memory.close();
        },
      ),
      { numRuns: 40 },
    );
  });

  it('a 1 MB message is stored and found', async () => {
    const memory = openMemoryStore({ agentId: 'a', sessionId: 's' });
    await memory.append([
      { id: 'big', role: 'user', content: `${'日志行 log line 😀\n'.repeat(60_000)}unique-marker` },
    ]);
    const [hit] = await memory.recallSource().recall({ query: 'unique-marker', limit: 1 });
    expect(hit?.id).toBe('big');
  });

  it('the shared pool accepts arbitrary content and queries', async () => {
    await fc.assert(
      fc.asyncProperty(nasty, nasty, async (content, query) => {
        const pool = openSharedPool();
        pool.publish({ namespace: 'team', key: 'k', content, publisher: 'p' });
        const blocks = await createSharedPoolSource({ pool, namespaces: ['team'] }).collect(
          makeRequest(query),
          makeBudget(10_000),
        );
        expect(blocks).toHaveLength(1);
        pool.close();
      }),
      { numRuns: 40 },
    );
  });
});
