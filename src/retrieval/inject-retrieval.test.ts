import { describe, expect, it } from 'vitest';
import { fingerprintContent } from '../core/fingerprint.ts';
import { createCharCounter } from '../testing/index.ts';
import type { RankedCandidate } from './candidate.ts';
import { injectRetrieval } from './inject-retrieval.ts';
import { makeCandidate } from './test-candidates.test-support.ts';

const counter = createCharCounter();

function ranked(id: string, content: string, finalScore: number): RankedCandidate {
  return { ...makeCandidate({ id, content }), finalScore, signals: {} };
}

describe('injectRetrieval', () => {
  it('keeps candidates in final-score order while they fit', () => {
    const blocks = injectRetrieval({
      candidates: [ranked('a', 'aaaa', 0.9), ranked('b', 'bbbb', 0.8)],
      maxTokens: 10,
      counter,
    });
    expect(blocks.map((block) => block.content)).toEqual(['aaaa', 'bbbb']);
    expect(blocks[0]).toMatchObject({
      layer: 'knowledge__context',
      source: 'retrieval',
      priority: 0.9,
      tokens: 4,
    });
  });

  it('trims a block at a sentence boundary', () => {
    const blocks = injectRetrieval({
      candidates: [ranked('a', 'First one. Second one. Third.', 0.9), ranked('b', 'tiny', 0.5)],
      maxTokens: 24,
      counter,
    });
    expect(blocks.map((block) => block.content)).toEqual(['First one. Second one.']);
    expect(blocks[0]?.metadata.trimmed).toBe(true);
  });

  it('goes on packing after a trim: a shorter candidate still fills what the cut left', () => {
    const blocks = injectRetrieval({
      candidates: [
        ranked('a', 'First one. Second one. Third.', 0.9),
        ranked('b', 'Odd. More text.', 0.6),
        ranked('c', 'ab', 0.5),
      ],
      maxTokens: 28,
      counter,
    });
    expect(blocks.map((block) => block.content)).toEqual(['First one. Second one.', 'Odd.', 'ab']);
    expect(blocks.map((block) => block.metadata.trimmed)).toEqual([true, true, false]);
    expect(blocks.reduce((sum, block) => sum + block.tokens, 0)).toBe(28);
  });

  it('trims Chinese text at 。', () => {
    const [block] = injectRetrieval({
      candidates: [ranked('a', '第一句。第二句。', 0.9)],
      maxTokens: 5,
      counter,
    });
    expect(block?.content).toBe('第一句。');
  });

  it('skips a candidate with no fitting sentence so a shorter one can still fit', () => {
    const blocks = injectRetrieval({
      candidates: [ranked('a', 'x'.repeat(50), 0.9), ranked('b', 'short', 0.4)],
      maxTokens: 10,
      counter,
    });
    expect(blocks.map((block) => block.metadata.candidateId)).toEqual(['b']);
  });

  it("keeps the candidate's fingerprint for unchanged content and fingerprints trimmed content anew", () => {
    const whole = { ...ranked('a', 'aaaa', 0.9), fingerprint: 'origin-key-a' };
    const cut = ranked('b', 'First one. Second one. Third.', 0.5);
    const blocks = injectRetrieval({ candidates: [whole, cut], maxTokens: 20, counter });
    expect(blocks.map((block) => block.content)).toEqual(['aaaa', 'First one.']);
    expect(blocks[0]?.fingerprint).toBe('origin-key-a');
    expect(blocks[1]?.fingerprint).toBe(fingerprintContent('First one.'));
    expect(blocks[1]?.fingerprint).not.toBe(cut.fingerprint);
  });

  it('never exceeds the budget', () => {
    const candidates = Array.from({ length: 20 }, (_, index) =>
      ranked(String(index), `Sentence ${index}. More text here.`, 1 - index / 40),
    );
    for (const maxTokens of [0, 7, 33, 100, 1000]) {
      const blocks = injectRetrieval({ candidates, maxTokens, counter });
      expect(blocks.reduce((sum, block) => sum + block.tokens, 0)).toBeLessThanOrEqual(maxTokens);
    }
  });

  it('carries provenance and origin on each block', () => {
    const candidate = {
      ...ranked('c1', 'text', 0.7),
      origin: 'docs',
      provenance: { file: 'a.md', startLine: 3, endLine: 9 },
    };
    const [block] = injectRetrieval({
      candidates: [candidate],
      maxTokens: 100,
      counter,
      layer: 'experience__context',
    });
    expect(block).toMatchObject({
      id: 'docs:c1',
      layer: 'experience__context',
      provenance: { file: 'a.md', startLine: 3, endLine: 9 },
      metadata: { origin: 'docs', candidateId: 'c1', finalScore: 0.7 },
    });
  });
});
