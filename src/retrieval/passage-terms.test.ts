import { describe, expect, it } from 'vitest';
import { type Analyzer, createAnalyzer } from './analyzer.ts';
import { createConversationIndex } from './conversation-index.ts';
import { createReranker } from './reranker.ts';

const turns = [
  { id: '1', text: 'A: Where should we hike this weekend? Hiking hikes.' },
  { id: '2', text: 'B: Mount Tam, the views are great for a weekend hike.' },
  { id: '3', text: 'A: Did you finish the report about the hike?' },
  { id: '4', text: 'B: Yes, sent the report to Dana yesterday.' },
  { id: '5', text: 'A: 周末去爬山 weekend views' },
];

// An analyzer that notes every text it analyses (the terms of the shared default one).
function countingAnalyzer(): { analyzer: Analyzer; texts: string[] } {
  const base = createAnalyzer({ maxTermLength: 64 });
  const texts: string[] = [];
  return {
    texts,
    analyzer: {
      name: base.name,
      analyze(text) {
        texts.push(text);
        return base.analyze(text);
      },
    },
  };
}

describe('query overlap from the term ids a conversation index holds', () => {
  it('reranks a recalled list without analysing its passages again', async () => {
    const { analyzer, texts } = countingAnalyzer();
    const index = createConversationIndex({ analyzer });
    index.append(turns);
    const reranker = createReranker({ analyzer });
    texts.length = 0;
    const candidates = await index.recall({ query: 'weekend hike views report', limit: 5 });
    reranker.rerank({ query: 'weekend hike views report', candidates });
    // The recall analyses the query (its turns' terms are kept); the overlap analyses nothing.
    expect(texts.every((text) => text === 'weekend hike views report')).toBe(true);
  });

  it('gives the overlap the term cache gives, for the list itself, a copy, and a changed list', async () => {
    const { analyzer } = countingAnalyzer();
    const index = createConversationIndex({ analyzer });
    index.append(turns);
    const held = createReranker({ analyzer });
    const looked = createReranker({ analyzer });
    for (const query of ['weekend hike views report', 'Dana report', '爬山 weekend', 'nothing here at all']) {
      const candidates = await index.recall({ query, limit: 5 });
      const expected = looked.rerank({
        query,
        candidates: candidates.map((candidate) => ({ ...candidate })),
      });
      expect(held.rerank({ query, candidates })).toEqual(expected);
      // A candidate's content changed after the recall: its ids no longer apply.
      const first = candidates[0];
      if (first === undefined) continue;
      first.content = 'Dana views';
      const changed = looked.rerank({ query, candidates: candidates.map((candidate) => ({ ...candidate })) });
      expect(held.rerank({ query, candidates })).toEqual(changed);
    }
  });

  it('gives the text lookup overlap after a longer recall, and for a list grown after its recall', async () => {
    const { analyzer } = countingAnalyzer();
    const index = createConversationIndex({ analyzer });
    index.append(turns);
    const held = createReranker({ analyzer });
    const looked = createReranker({ analyzer });
    const copies = (candidates: readonly { content: string }[]) =>
      candidates.map((candidate) => ({ ...candidate })) as typeof long;
    const long = await index.recall({ query: 'weekend hike views report Dana', limit: 5 });
    expect(long.length).toBe(5);
    const short = await index.recall({ query: 'report Dana', limit: 2 });
    expect(held.rerank({ query: 'report Dana', candidates: short })).toEqual(
      looked.rerank({ query: 'report Dana', candidates: copies(short) }),
    );
    // A candidate appended to the recalled list after the recall: the list no longer matches.
    short.push({ ...(long[4] as (typeof long)[number]) });
    expect(held.rerank({ query: 'report Dana', candidates: short })).toEqual(
      looked.rerank({ query: 'report Dana', candidates: copies(short) }),
    );
  });

  it('leaves another analyzer, a message range and a replaced turn to the text lookup', async () => {
    const { analyzer } = countingAnalyzer();
    const index = createConversationIndex({ analyzer });
    index.append(turns);
    const query = 'weekend hike views';
    const other = countingAnalyzer();
    const candidates = await index.recall({ query, limit: 5 });
    other.texts.length = 0;
    createReranker({ analyzer: other.analyzer }).rerank({ query, candidates });
    // Another analyzer (equal terms, another object) analyses the passages itself.
    expect(other.texts.length).toBeGreaterThan(1);

    const ranged = await index.recallSource({ messageRange: 1 }).recall({ query, limit: 5 });
    const reference = createReranker({ analyzer });
    expect(createReranker({ analyzer }).rerank({ query, candidates: ranged })).toEqual(
      reference.rerank({ query, candidates: ranged.map((candidate) => ({ ...candidate })) }),
    );

    index.append([{ id: '2', text: 'B: Rain all weekend, no hike.' }]);
    index.remove('1');
    const after = await index.recall({ query, limit: 5 });
    expect(createReranker({ analyzer }).rerank({ query, candidates: after })).toEqual(
      reference.rerank({ query, candidates: after.map((candidate) => ({ ...candidate })) }),
    );
    expect(after.find((candidate) => candidate.id === '2')?.content).toBe('B: Rain all weekend, no hike.');
  });

  it('gives the text lookup overlap while turns are replaced until their held ids are cleared and rebuilt', async () => {
    const { analyzer } = countingAnalyzer();
    const index = createConversationIndex({ analyzer });
    index.append(turns);
    const held = createReranker({ analyzer });
    const looked = createReranker({ analyzer });
    const texts = [
      'B: a weekend hike with views',
      'B: the report, then Dana',
      'B: views of 爬山 at the weekend',
    ];
    for (let round = 0; round < 12; round++) {
      // Each recall holds every turn's ids; each replacement releases turn 2's and turn 4's.
      const query = round % 2 === 0 ? 'weekend hike views report Dana' : 'views 爬山 Dana';
      const before = await index.recall({ query, limit: 5 });
      index.append([
        { id: '2', text: texts[round % 3] as string },
        { id: '4', text: texts[(round + 1) % 3] as string },
      ]);
      if (round === 6) index.remove('3');
      // The list recalled before the change is still the last recall: it keeps its own ids.
      expect(held.rerank({ query, candidates: before })).toEqual(
        looked.rerank({ query, candidates: before.map((candidate) => ({ ...candidate })) }),
      );
      const candidates = await index.recall({ query, limit: 5 });
      expect(held.rerank({ query, candidates })).toEqual(
        looked.rerank({ query, candidates: candidates.map((candidate) => ({ ...candidate })) }),
      );
    }
  });
});
