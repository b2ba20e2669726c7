import { describe, expect, it } from 'vitest';
import type { Embedder } from './embedder.ts';
import { createKnowledgeBase } from './knowledge-base.ts';

// Deterministic offline embedder: counts of a few topic words.
const topics = ['cat', 'dog', 'car', 'tea'];
const topicEmbedder: Embedder = {
  name: 'topics',
  dimensions: topics.length,
  embed: async (texts) =>
    texts.map((text) => Float32Array.from(topics.map((topic) => (text.includes(topic) ? 1 : 0) + 0.01))),
};

const documents = [
  {
    id: 'pets',
    text: 'The cat and the dog sleep all day.',
    provenance: { file: 'pets.md', startLine: 1, endLine: 1 },
  },
  { id: 'cars', text: 'A car needs oil and tyres.' },
  { id: 'drinks', text: 'Green tea is brewed at 80 degrees.' },
];

describe('createKnowledgeBase', () => {
  it('recalls lexically with the best hit normalised to 1', async () => {
    const kb = createKnowledgeBase({ name: 'docs' });
    await kb.add(documents);
    const candidates = await kb.recall({ query: 'how hot for green tea', limit: 20 });
    expect(candidates[0]).toMatchObject({ id: 'drinks', origin: 'docs', vectorScore: 1 });
  });

  it('carries provenance and metadata to the candidates', async () => {
    const kb = createKnowledgeBase({ name: 'docs' });
    await kb.add(documents);
    const [candidate] = await kb.recall({ query: 'cat', limit: 1 });
    expect(candidate?.provenance).toEqual({ file: 'pets.md', startLine: 1, endLine: 1 });
  });

  it('recalls by meaning when an embedder is set, even without shared words', async () => {
    const kb = createKnowledgeBase({ name: 'docs', embedder: topicEmbedder });
    await kb.add(documents);
    const candidates = await kb.recall({ query: 'tea', limit: 3 });
    expect(candidates[0]?.id).toBe('drinks');
    // hybrid: (cosine + lexical) / 2 ≤ 1
    expect(candidates.every((candidate) => candidate.vectorScore <= 1)).toBe(true);
  });

  it('removes documents and round-trips through its saved form', async () => {
    const kb = createKnowledgeBase({ name: 'docs', embedder: topicEmbedder });
    await kb.add(documents);
    expect(kb.remove('cars')).toBe(true);
    const restored = createKnowledgeBase({
      name: 'docs',
      embedder: topicEmbedder,
      saved: JSON.parse(JSON.stringify(kb.toJSON())),
    });
    expect(restored.size).toBe(2);
    expect(await restored.recall({ query: 'cat dog', limit: 5 })).toEqual(
      await kb.recall({ query: 'cat dog', limit: 5 }),
    );
    expect(
      (await restored.recall({ query: 'oil tyres car', limit: 5 })).map((candidate) => candidate.id),
    ).not.toContain('cars');
  });
});

describe('KnowledgeBase.add on a document that is not of its type', () => {
  it.each([
    ['a document without an id', [documents[1], { text: 'no id' }], 'documents.1.id'],
    ['a document whose id is empty', [{ id: '', text: 'x' }], 'documents.0.id'],
    [
      'a document whose text is a number',
      [documents[0], documents[1], { id: 'n', text: 42 }],
      'documents.2.text',
    ],
    ['a document whose text is missing', [{ id: 'n' }], 'documents.0.text'],
    ['a null document', [null], 'documents.0'],
    ['documents that are not an array', documents[0], 'documents'],
  ])('names %s (invalid-argument) and adds none of the batch', async (_, batch, path) => {
    const kb = createKnowledgeBase({ name: 'docs', embedder: topicEmbedder });
    const error = await kb.add(batch as never).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'CtxloomError', code: 'invalid-argument', path });
    expect(kb.size).toBe(0);
    expect(await kb.recall({ query: 'car oil tyres', limit: 5 })).toEqual([]);
  });
});
