import { describe, expect, it } from 'vitest';
import { fingerprintContent } from '../core/fingerprint.ts';
import { createConversationIndex } from './conversation-index.ts';

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

  it('rejects windows outside 0..10', () => {
    expect(() => createConversationIndex({ indexContext: 11 })).toThrow(/indexContext/);
  });
});
