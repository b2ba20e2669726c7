import { describe, expect, it } from 'vitest';
import { fingerprintContent } from '../core/fingerprint.ts';
import { createConversationIndex } from './conversation-index.ts';
import { type FreshRecall, freshRecallOf } from './fresh-recall.ts';

const turns = [
  { id: '1', text: 'A: Where should we hike this weekend?' },
  { id: '2', text: 'B: Mount Tam, the views are great.' },
  { id: '3', text: 'A: Did you finish the report?' },
  { id: '4', text: 'B: Yes, sent it to Dana yesterday.' },
];

describe('createConversationIndex', () => {
  it('finds an answer turn by the words of the question before it', async () => {
    const index = createConversationIndex();
    index.append(turns);
    const [best, second] = await index.recall({ query: 'hike weekend', limit: 2 });
    expect([best?.id, second?.id].sort()).toEqual(['1', '2']);
    expect(best?.id).toBe('1');
  });

  it('finds nothing by neighbours when indexContext is 0', async () => {
    const index = createConversationIndex({ indexContext: 0 });
    index.append(turns);
    expect((await index.recall({ query: 'hike weekend', limit: 5 })).map((hit) => hit.id)).toEqual(['1']);
  });

  it('re-indexes neighbours on append and remove', async () => {
    const index = createConversationIndex();
    index.append(turns.slice(0, 1));
    index.append(turns.slice(1));
    expect((await index.recall({ query: 'hike', limit: 5 })).map((hit) => hit.id).sort()).toEqual(['1', '2']);
    index.remove('1');
    expect(await index.recall({ query: 'hike', limit: 5 })).toEqual([]);
    expect(index.entries().map((entry) => entry.id)).toEqual(['2', '3', '4']);
  });

  it('widens recalled content with messageRange and normalises the best score to 1', async () => {
    const index = createConversationIndex({ indexContext: 0, messageRange: 1 });
    index.append(turns);
    const [hit] = await index.recall({ query: 'report', limit: 1 });
    expect(hit?.content).toBe(`${turns[1]?.text}\n${turns[2]?.text}\n${turns[3]?.text}`);
    expect(hit?.vectorScore).toBe(1);
  });

  it('fingerprints the current text of each turn after replace and remove', async () => {
    const index = createConversationIndex({ indexContext: 0 });
    index.append(turns);
    const fingerprints = async () =>
      (await index.recall({ query: 'hike views report dana', limit: 10 })).map((hit) => [
        hit.id,
        hit.fingerprint,
      ]);
    const expected = () => index.entries().map((entry) => [entry.id, fingerprintContent(entry.text)]);
    expect((await fingerprints()).sort()).toEqual(expected().sort());
    index.append([{ id: '2', text: 'B: Mount Tam has great views, and the report is late.' }]);
    expect((await fingerprints()).sort()).toEqual(expected().sort());
    index.remove('1');
    expect((await fingerprints()).sort()).toEqual(expected().sort());
  });

  it('finds the turn of each hit by its slot after appends, replacements, removals and direct changes to the lexical index', async () => {
    // What recall returned before turns were kept by slot: the lexical hits of known turns, in order.
    const reference = (index: ReturnType<typeof createConversationIndex>, query: string) => {
      const known = new Set(index.entries().map((entry) => entry.id));
      const hits = index.lexical.search(query, { limit: 8 });
      const best = hits[0]?.score ?? 1;
      return hits.filter((hit) => known.has(hit.id)).map((hit) => [hit.id, hit.score / best]);
    };
    const index = createConversationIndex({ indexContext: 1 });
    const many = Array.from({ length: 30 }, (_, turn) => ({
      id: `t${turn}`,
      text: `${turn % 2 ? 'A' : 'B'}: ${['hike', 'report', 'dana', 'views', 'weekend'][turn % 5]} number ${turn}`,
    }));
    index.append(many.slice(0, 20));
    index.remove('t3');
    index.append([{ id: 't7', text: 'A: the report about the hike' }, ...many.slice(20)]);
    index.remove('t0');
    index.remove('t29');
    // A document added to the lexical index directly (not a turn), and a turn removed there.
    index.lexical.add('stray', 'hike report dana views weekend');
    index.lexical.remove('t12');
    index.append([{ id: 't31', text: 'B: another hike report' }]);
    for (const query of ['hike', 'report dana', 'views weekend', 'number 12', 'another']) {
      const recalled = await index.recall({ query, limit: 8 });
      expect(recalled.map((hit) => [hit.id, hit.vectorScore])).toEqual(reference(index, query));
      for (const hit of recalled) {
        const entry = index.entries().find((candidate) => candidate.id === hit.id);
        expect(hit.content).toBe(entry?.text);
        expect(hit.metadata.position).toBe(index.entries().indexOf(entry as never));
      }
    }
  });

  it('tells whether its last fresh recall repeats a fingerprint, after replacements and removals too', () => {
    const index = createConversationIndex();
    index.append(turns);
    const fresh = freshRecallOf(index) as FreshRecall;
    const recalled = (query: string) => {
      const candidates = fresh.now({ query, limit: 20 }, false);
      const fingerprints = candidates.map((candidate) => candidate.fingerprint);
      return { size: candidates.length, repeats: new Set(fingerprints).size < fingerprints.length };
    };
    expect(recalled('hike weekend report')).toEqual({ size: 4, repeats: false });
    expect(fresh.distinct()).toBe(true);
    // Turn 3 gets turn 1's text: two candidates share a fingerprint.
    index.append([{ id: '3', text: turns[0]?.text as string }]);
    expect(recalled('hike weekend')).toMatchObject({ repeats: true });
    expect(fresh.distinct()).toBe(false);
    expect(recalled('nothing matches this')).toEqual({ size: 0, repeats: false });
    expect(fresh.distinct()).toBe(true);
    index.remove('1');
    expect(recalled('hike weekend')).toMatchObject({ repeats: false });
    expect(fresh.distinct()).toBe(true);
    // With a message range the contents are windows, not numbered: unknown.
    const view = index.recallSource({ name: 'wide', messageRange: 1 });
    (freshRecallOf(view) as FreshRecall).now({ query: 'hike weekend', limit: 20 }, false);
    expect((freshRecallOf(view) as FreshRecall).distinct()).toBe(false);
  });

  it("reads a turn's id, text and metadata when it is appended, and again when it is appended again", async () => {
    const index = createConversationIndex({ messageRange: 1 });
    const entries = turns.map((turn) => ({ ...turn, metadata: { speaker: turn.text[0] } }));
    index.append(entries);
    const changed = entries[1] as (typeof entries)[number];
    changed.text = 'B: penguins skating on frozen lakes';
    changed.metadata = { speaker: 'C' };
    const view = index.recallSource({ messageRange: 0 });
    const [hit] = await view.recall({ query: 'Mount Tam views', limit: 1 });
    expect(hit?.content).toBe('B: Mount Tam, the views are great.');
    expect(hit?.metadata).toEqual({ speaker: 'B', position: 1 });
    expect((await index.recall({ query: 'Mount Tam views', limit: 1 }))[0]?.content).toContain(
      'B: Mount Tam, the views are great.',
    );
    index.append([changed]);
    const [after] = await view.recall({ query: 'penguins skating', limit: 1 });
    expect(after?.content).toBe('B: penguins skating on frozen lakes');
    expect(after?.metadata).toEqual({ speaker: 'C', position: 1 });
  });

  it('rejects windows outside 0..10', () => {
    expect(() => createConversationIndex({ indexContext: 11 })).toThrow(/indexContext/);
  });
});
