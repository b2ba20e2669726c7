import { describe, expect, it } from 'vitest';
import { createCharCounter } from '../testing/index.ts';
import { getTokenCounter } from '../tokenizers/index.ts';
import type { RetrievalCandidate } from './candidate.ts';
import { createConversationIndex } from './conversation-index.ts';
import { createKnowledgeBase } from './knowledge-base.ts';
import type { RecallSource } from './recall-source.ts';
import { createDefaultSignals } from './rerank-signals.ts';
import { createReranker } from './reranker.ts';
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
  it("ranks a conversation index's fresh recall in place, as a copying rerank would, and no other source's list", async () => {
    const turns = [
      { id: 't1', text: 'Caroline: I went to the LGBTQ support group yesterday.' },
      { id: 't2', text: 'Melanie: That sounds great, how was the support group?' },
      { id: 't3', text: 'Caroline: It was moving; the transgender stories inspired me.' },
      { id: 't4', text: 'Melanie: I painted a sunrise over the lake last week.' },
    ];
    const index = createConversationIndex();
    index.append(turns);
    const request = { query: 'support group stories', maxTokens: 200, counter };
    const direct = await createRetriever({ sources: [index] }).retrieve(request);
    const view = await createRetriever({ sources: [index.recallSource({ name: 'memory' })] }).retrieve(
      request,
    );
    // A source that keeps the list it returns (here: a wrapper of the same index) gets copies.
    let kept: RetrievalCandidate[] = [];
    const keeping: RecallSource = {
      name: 'memory',
      recall: async (recall) => {
        kept = await index.recall(recall);
        return kept;
      },
    };
    const copied = await createRetriever({ sources: [keeping] }).retrieve(request);
    // An index whose recall is replaced is recalled through the replacement, and copied.
    const replaced = createConversationIndex();
    replaced.append(turns);
    const original = replaced.recall;
    let replacedList: RetrievalCandidate[] = [];
    const retrieverOfReplaced = createRetriever({ sources: [replaced] });
    replaced.recall = async (recall) => {
      replacedList = await original(recall);
      return replacedList;
    };
    expect(await retrieverOfReplaced.retrieve(request)).toEqual(copied);
    expect(replacedList.length).toBe(direct.ranked.length);
    for (const candidate of replacedList) expect(candidate).not.toHaveProperty('finalScore');
    expect(direct.ranked.length).toBeGreaterThan(1);
    expect(direct).toEqual(copied);
    expect(view).toEqual(copied);
    for (const candidate of kept) expect(candidate).not.toHaveProperty('finalScore');
    // A custom signal of the seed reranker sees recalled candidates, not the ranked shape.
    const seen: string[][] = [];
    const custom = createReranker({
      signals: [
        ...createDefaultSignals(),
        {
          name: 'keys',
          weight: 0,
          score: (candidate) => {
            seen.push(Object.keys(candidate));
            return 0;
          },
        },
      ],
    });
    await createRetriever({ sources: [index], reranker: custom }).retrieve(request);
    expect(seen.length).toBe(direct.ranked.length);
    for (const keys of seen) expect(keys).not.toContain('finalScore');
    // Candidates under minFinalScore are dropped, the others completed as copies are.
    const strict = await createRetriever({ sources: [index], minFinalScore: 0.5 }).retrieve(request);
    const strictCopied = await createRetriever({ sources: [keeping], minFinalScore: 0.5 }).retrieve(request);
    expect(strict.ranked.length).toBeLessThan(direct.ranked.length);
    expect(strict).toEqual(strictCopied);
    // Each retrieve returns its own objects.
    const again = await createRetriever({ sources: [index] }).retrieve(request);
    expect(again.ranked[0]).toEqual(direct.ranked[0]);
    expect(again.ranked[0]).not.toBe(direct.ranked[0]);
  });

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

  it('with one source: applies its minScore, reports its failure, and rethrows once aborted', async () => {
    const mixed: RecallSource = {
      name: 'mixed',
      recall: async () => [
        makeCandidate({ id: 'strong', content: 'OAuth2 strong match', origin: 'mixed', vectorScore: 0.9 }),
        makeCandidate({ id: 'weak', content: 'OAuth2 weak match', origin: 'mixed', vectorScore: 0.1 }),
      ],
    };
    const kept = await createRetriever({ sources: [{ source: mixed, minScore: 0.5 }] }).retrieve({
      query: 'OAuth2',
      maxTokens: 0,
      counter,
    });
    expect(kept.ranked.map((candidate) => candidate.id)).toEqual(['strong']);
    expect(kept.blocks).toEqual([]);
    const offline = new Error('offline');
    const broken: RecallSource = {
      name: 'broken',
      recall: async () => {
        throw offline;
      },
    };
    const retriever = createRetriever({ sources: [broken] });
    const failed = await retriever.retrieve({ query: 'OAuth2', maxTokens: 100, counter });
    expect(failed.ranked).toEqual([]);
    expect(failed.failures).toEqual([{ source: 'broken', error: offline }]);
    const controller = new AbortController();
    controller.abort();
    await expect(
      retriever.retrieve({ query: 'OAuth2', maxTokens: 100, counter, signal: controller.signal }),
    ).rejects.toBe(offline);
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

  it("deduplicates a conversation index's fresh recall when turns repeat a text, as a copying rerank would", async () => {
    const index = createConversationIndex();
    index.append([
      { id: 't1', text: 'Caroline: the support group met again.' },
      { id: 't2', text: 'Melanie: Thanks!' },
      { id: 't3', text: 'Caroline: the support group met again.' },
      { id: 't4', text: 'Melanie: Thanks!' },
      { id: 't5', text: 'Caroline: I painted the lake.' },
    ]);
    const keeping: RecallSource = { name: 'memory', recall: (recall) => index.recall(recall) };
    for (const query of ['support group thanks', 'painted lake', 'thanks']) {
      const request = { query, maxTokens: 200, counter };
      const direct = await createRetriever({ sources: [index] }).retrieve(request);
      expect(direct).toEqual(await createRetriever({ sources: [keeping] }).retrieve(request));
      const fingerprints = direct.ranked.map((candidate) => candidate.fingerprint);
      expect(new Set(fingerprints).size).toBe(fingerprints.length);
    }
    const both = await createRetriever({ sources: [index] }).retrieve({
      query: 'support group thanks',
      maxTokens: 0,
      counter,
    });
    expect(both.ranked.length).toBe(2);
  });

  it('rejects duplicate source names', async () => {
    const kb = await docs();
    expect(() => createRetriever({ sources: [kb, kb] })).toThrow(/duplicate/);
  });
});

describe('createRetriever on a long conversation (LoCoMo-like)', () => {
  // 300 turns of two speakers; 45 of them are about pottery, worded differently, spread out.
  const subjects = [
    'the hiking trip',
    'her new job',
    'the adoption agency',
    'a book club',
    'the charity run',
  ];
  const turns = Array.from({ length: 300 }, (_, index) => {
    const speaker = index % 2 === 0 ? 'Caroline' : 'Melanie';
    const text =
      index % 7 === 3
        ? `${speaker}: I went to my pottery class again on day ${index}; we glazed bowl number ${index % 11}.`
        : `${speaker}: Let me tell you about ${subjects[index % subjects.length]} — day ${index} was busy but good.`;
    return { id: `t${index}`, text };
  });
  const evidence = turns.filter((turn) => turn.text.includes('pottery')).map((turn) => turn.id);

  it('fills the token budget it is given instead of stopping at recallLimit candidates', async () => {
    const index = createConversationIndex({ indexContext: 1 });
    index.append(turns);
    const tokens = getTokenCounter('gpt-4o');
    const retrieve = (maxRecallLimit?: number) =>
      createRetriever({
        sources: [index],
        ...(maxRecallLimit === undefined ? {} : { maxRecallLimit }),
      }).retrieve({ query: 'What did Caroline do in her pottery class?', maxTokens: 2000, counter: tokens });
    const used = (blocks: readonly { tokens: number }[]) =>
      blocks.reduce((sum, block) => sum + block.tokens, 0);
    const recall = (blocks: readonly { metadata: Record<string, unknown> }[]) => {
      const packed = new Set(blocks.map((block) => block.metadata.candidateId));
      return evidence.filter((id) => packed.has(id)).length / evidence.length;
    };

    const oneRound = await retrieve(20);
    expect(oneRound.blocks.length).toBe(20);
    expect(recall(oneRound.blocks)).toBeLessThan(0.5);

    const filled = await retrieve();
    expect(evidence.length).toBe(43);
    expect(used(filled.blocks)).toBeLessThanOrEqual(2000);
    expect(used(filled.blocks)).toBeGreaterThan(2000 * 0.95);
    expect(recall(filled.blocks)).toBe(1);
  });
});
