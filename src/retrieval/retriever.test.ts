import { describe, expect, it } from 'vitest';
import { createCharCounter } from '../testing/index.ts';
import { createKnowledgeBase } from './knowledge-base.ts';
import type { RecallSource } from './recall-source.ts';
import { createRetriever } from './retriever.ts';
import { makeCandidate } from './test-candidates.test-support.ts';

const counter = createCharCounter();

async function docs() {
  const kb = createKnowledgeBase({ name: 'docs' });
  await kb.add([
    { id: 'oauth', text: 'OAuth2 tokens expire after one hour; refresh them with the refresh token.' },
    { id: 'db', text: 'The database runs PostgreSQL 16 with two replicas.' },
  ]);
  return kb;
}

describe('createRetriever', () => {
  it('rewrites the query from history, recalls, reranks and injects within budget', async () => {
    const retriever = createRetriever({ sources: [await docs()] });
    const result = await retriever.retrieve({
      query: 'how long is it valid?',
      history: ['We authenticate with OAuth2', 'OAuth2 tokens are stored server side'],
      maxTokens: 500,
      counter,
    });
    expect(result.query.addedWords).toContain('OAuth2');
    expect(result.blocks[0]?.metadata.candidateId).toBe('oauth');
    expect(result.blocks.reduce((sum, block) => sum + block.tokens, 0)).toBeLessThanOrEqual(500);
  });

  it('merges sources, applies per-source minScore and keeps going when one source fails', async () => {
    const weak: RecallSource = {
      name: 'weak',
      recall: async () => [
        makeCandidate({ id: 'w', content: 'OAuth2 weak match', origin: 'weak', vectorScore: 0.1 }),
      ],
    };
    const broken: RecallSource = {
      name: 'broken',
      recall: async () => {
        throw new Error('offline');
      },
    };
    const retriever = createRetriever({ sources: [await docs(), { source: weak, minScore: 0.5 }, broken] });
    const result = await retriever.retrieve({ query: 'OAuth2', maxTokens: 1000, counter });
    expect(result.ranked.map((candidate) => candidate.origin)).not.toContain('weak');
    expect(result.failures.map((failure) => failure.source)).toEqual(['broken']);
    expect(result.blocks.length).toBeGreaterThan(0);
  });

  it('passes each source its recallLimit', async () => {
    const limits: number[] = [];
    const spy: RecallSource = {
      name: 'spy',
      recall: async ({ limit }) => {
        limits.push(limit);
        return [];
      },
    };
    const retriever = createRetriever({
      sources: [spy, { source: { ...spy, name: 'spy2' }, recallLimit: 5 }],
    });
    await retriever.retrieve({ query: 'x', maxTokens: 10, counter });
    expect(limits.sort()).toEqual([20, 5].sort());
  });

  it('rejects duplicate source names', async () => {
    const kb = await docs();
    expect(() => createRetriever({ sources: [kb, kb] })).toThrow(/duplicate/);
  });
});
