import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildRankingFixture, type RankingRecord, recordRankings } from './ranking-fixture.test-support.ts';

// The rankings recorded before the query path was made faster (decision 060): every id, final
// score, signal, block and BM25 score to the last bit. A change to what retrieval ranks must
// show up here and be justified, not slip in with a speed-up.
const expected = JSON.parse(
  readFileSync(new URL('../../test/fixtures/retrieval-ranking.json', import.meta.url), 'utf8'),
) as RankingRecord;

describe('retrieval rankings on a fixed conversation', () => {
  it('holds a conversation large enough to prune and cut (480 turns, 48 questions)', () => {
    const fixture = buildRankingFixture();
    expect(fixture.turns).toHaveLength(480);
    expect(fixture.questions).toHaveLength(48);
    // The record covers full top-20s, duplicates merged, no match at all, and budgets that
    // recalled more than one round.
    const sizes = expected.retrieve.map((entry) => entry.ranked.length);
    expect(sizes).toContain(20);
    expect(sizes.some((size) => size > 0 && size < 20)).toBe(true);
    expect(sizes).toContain(0);
    expect(expected.withHistory.some((entry) => entry.ranked.length > 20)).toBe(true);
  });

  it('ranks, rewrites, packs and filters exactly as recorded, twice in one process (caches warm)', async () => {
    expect(await recordRankings()).toEqual(expected);
    expect(await recordRankings()).toEqual(expected);
  });
});
