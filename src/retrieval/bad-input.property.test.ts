import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CtxloomError } from '../core/index.ts';
import { createCharCounter } from '../testing/index.ts';
import { createAnalyzer } from './analyzer.ts';
import { createBm25Index } from './bm25-index.ts';
import { createKnowledgeBase } from './knowledge-base.ts';
import { rewriteQuery } from './query-rewriter.ts';
import { createRetriever } from './retriever.ts';
import { trimToSentences } from './trim-to-sentences.ts';
import { createVectorIndex } from './vector-index.ts';

// Arbitrary text: full Unicode, raw UTF-16 units (lone surrogates), emoji, CJK, punctuation.
const loneSurrogates = fc
  .array(fc.integer({ min: 0xd800, max: 0xdfff }), { maxLength: 5 })
  .map((units) => String.fromCharCode(...units));
const nasty = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.string({ unit: 'grapheme', maxLength: 200 }),
  fc.string({
    unit: fc.constantFrom(
      '的',
      '是',
      'the',
      ' ',
      '。',
      '!',
      '😀',
      '👩‍👩‍👧',
      'é',
      'Ａ',
      '\n',
      'ﬁ',
      '\u0000',
      '\uFFFD',
    ),
    maxLength: 80,
  }),
  fc
    .tuple(fc.string({ maxLength: 20 }), loneSurrogates, fc.string({ maxLength: 20 }))
    .map((parts) => parts.join('')),
);

describe('bad input', () => {
  it('the analyzer returns non-empty, well-formed terms for any string', () => {
    const analyzer = createAnalyzer();
    fc.assert(
      fc.property(nasty, (text) => {
        for (const term of analyzer.analyze(text)) {
          expect(term.length).toBeGreaterThan(0);
          expect(term).toBe(term.toWellFormed());
        }
      }),
    );
  });

  it('BM25 search returns finite, positive, descending scores for any documents and query', () => {
    fc.assert(
      fc.property(fc.array(nasty, { maxLength: 8 }), nasty, (documents, query) => {
        const index = createBm25Index();
        for (const [position, text] of documents.entries()) index.add(`d${position}`, text);
        const hits = index.search(query);
        for (const [position, hit] of hits.entries()) {
          expect(Number.isFinite(hit.score) && hit.score > 0).toBe(true);
          if (position > 0)
            expect(hit.score).toBeLessThanOrEqual(hits[position - 1]?.score ?? Number.POSITIVE_INFINITY);
        }
      }),
    );
  });

  it('empty, stopword-only and punctuation-only queries retrieve nothing', async () => {
    const kb = createKnowledgeBase({ name: 'kb' });
    await kb.add([{ id: '1', text: 'The deployment runs in Frankfurt.' }]);
    const retriever = createRetriever({ sources: [kb] });
    for (const query of ['', '   ', 'the of and is', '的 了 是', '?!…。，', '😀😀']) {
      const result = await retriever.retrieve({ query, maxTokens: 100, counter: createCharCounter() });
      expect(result.blocks).toEqual([]);
    }
  });

  it('indexes and finds a 1 MB mixed-script document', () => {
    const chunk = 'Alpha beta gamma delta. 数据库连接池配置。😀 ';
    const big = `${chunk.repeat(Math.ceil(1_000_000 / chunk.length))} needle-word zebra 斑马线`;
    const index = createBm25Index();
    index.add('big', big);
    index.add('small', 'zebra crossing');
    expect(index.search('斑马线').map((hit) => hit.id)).toEqual(['big']);
    expect(
      index
        .search('zebra')
        .map((hit) => hit.id)
        .sort(),
    ).toEqual(['big', 'small']);
  });

  it('the rewriter always starts with the original query', () => {
    fc.assert(
      fc.property(nasty, fc.array(nasty, { maxLength: 6 }), (query, messages) => {
        const result = rewriteQuery({ query, messages });
        expect(result.query.startsWith(query)).toBe(true);
        expect(result.addedWords.length).toBeLessThanOrEqual(6);
      }),
    );
  });

  it('sentence trimming yields a prefix that fits', () => {
    const counter = createCharCounter();
    fc.assert(
      fc.property(nasty, fc.integer({ min: 0, max: 100 }), (text, maxTokens) => {
        const trimmed = trimToSentences(text, maxTokens, counter);
        expect(text.startsWith(trimmed)).toBe(true);
        expect(trimmed.length).toBeLessThanOrEqual(Math.max(maxTokens, 0));
      }),
    );
  });

  it('retrieval over arbitrary passages stays within budget', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(nasty, { minLength: 1, maxLength: 6 }),
        nasty,
        fc.integer({ min: 0, max: 300 }),
        async (texts, query, maxTokens) => {
          const kb = createKnowledgeBase({ name: 'kb' });
          await kb.add(texts.map((text, position) => ({ id: String(position), text })));
          const result = await createRetriever({ sources: [kb] }).retrieve({
            query,
            maxTokens,
            counter: createCharCounter(),
          });
          expect(result.blocks.reduce((sum, block) => sum + block.tokens, 0)).toBeLessThanOrEqual(maxTokens);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('vector inputs that are not finite raise a typed error', () => {
    const index = createVectorIndex({ dimensions: 2 });
    for (const vector of [
      [Number.NaN, 1],
      [Number.POSITIVE_INFINITY, 0],
      [0, 0],
    ]) {
      expect(() => index.add('x', vector)).toThrow(CtxloomError);
    }
  });
});
