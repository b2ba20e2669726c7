import { describe, expect, it } from 'vitest';
import { describeArtifact } from './artifact-handles.ts';
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
