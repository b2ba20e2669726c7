import { describe, expect, it } from 'vitest';
import { createInMemoryArtifactStore, describeArtifact } from './artifact-handles.ts';
import { hashText } from './fingerprint.ts';

describe('describeArtifact', () => {
  it('gives a long content the hash of its text, remembered or not, past the remembered bound', () => {
    const contents = Array.from({ length: 2100 }, (_, index) => `${index} `.padEnd(1500, 'x'));
    for (const content of [...contents, ...contents.slice(0, 3), ...contents.slice(-3)]) {
      const entry = describeArtifact({ content, toolName: 'read_file' });
      expect(entry.hash).toBe(hashText(content));
      expect(entry.handle).toBe(`art_${hashText(content)}`);
    }
  });
});

describe('createInMemoryArtifactStore', () => {
  it('keeps the most recently put within its bounds; putting a known content again refreshes it', () => {
    const store = createInMemoryArtifactStore({ maxEntries: 2, maxCharacters: 1000 });
    const a = store.put({ content: 'alpha output', toolName: 'read_file' });
    const b = store.put({ content: 'beta output', toolName: 'read_file' });
    expect(store.put({ content: 'alpha output', toolName: 'read_file' })).toEqual(a);
    const c = store.put({ content: 'gamma output', toolName: 'read_file' });
    expect(store.get(a.handle)).toBe('alpha output');
    expect(store.get(b.handle)).toBeUndefined();
    expect(store.describe(c.handle)).toEqual(c);
    // Past its characters: the oldest go until the new one fits.
    const big = store.put({ content: 'x'.repeat(990), toolName: 'read_file' });
    expect(store.get(a.handle)).toBeUndefined();
    expect(store.get(c.handle)).toBeUndefined();
    expect(store.get(big.handle)).toHaveLength(990);
  });
});
