import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkDocument } from './chunk-document.ts';

describe('chunkDocument', () => {
  it('starts a chunk at every heading and records line provenance', () => {
    const text = '# Auth\nTokens expire after one hour.\n\n# Deploy\nRun make deploy.\nIt takes ten minutes.';
    const chunks = chunkDocument({ file: 'ops.md', text });
    expect(chunks.map((chunk) => [chunk.id, chunk.metadata?.heading])).toEqual([
      ['ops.md#1-2', 'Auth'],
      ['ops.md#4-6', 'Deploy'],
    ]);
    expect(chunks[1]?.text).toBe('# Deploy\nRun make deploy.\nIt takes ten minutes.');
  });

  it('keeps chunks within maxChars unless a single line is longer', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 150 }), { maxLength: 60 }), (lines) => {
        const chunks = chunkDocument({ file: 'f.txt', text: lines.join('\n'), maxChars: 100 });
        for (const chunk of chunks) {
          expect(chunk.text.length <= 100 || chunk.text.split('\n').length === 1).toBe(true);
          expect(chunk.provenance?.startLine).toBeLessThanOrEqual(chunk.provenance?.endLine ?? 0);
        }
      }),
    );
  });

  it('never loses non-blank text', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 40 }), { maxLength: 40 }), (lines) => {
        const chunks = chunkDocument({ file: 'f.txt', text: lines.join('\n'), maxChars: 100 });
        const kept = chunks.map((chunk) => chunk.text).join('\n');
        for (const line of lines) if (line.trim().length > 0) expect(kept).toContain(line.trim());
      }),
    );
  });

  it('rejects a maxChars below 100', () => {
    expect(() => chunkDocument({ file: 'f', text: 'x', maxChars: 10 })).toThrow(/maxChars/);
  });
});
