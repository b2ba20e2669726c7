import { describe, expect, it } from 'vitest';
import * as workspace from './index.ts';

// Seed 003 ("Block parser", docs/spec.md) names the block parser's interface: these three
// functions are public API of `ctxloom/workspace`, whatever a usage count says.
const MARKDOWN = '# Goals\n\nlearn raft\n\n## Known\n\nterms\n\n# Plan\n\nread the paper\n';

describe('ctxloom/workspace exports the block parser interface seed 003 names', () => {
  it('parses, flattens in document order and finds a nested block by its id', () => {
    const blocks = workspace.parseMarkdownBlocks(MARKDOWN, 'profile.md');
    const flat = workspace.flattenBlocks(blocks);
    expect(flat.map((block) => block.id)).toEqual(['Goals', 'Goals/Known', 'Plan']);
    expect(workspace.getBlockById(blocks, 'Goals/Known')?.content).toContain('terms');
    expect(workspace.getBlockById(blocks, 'Missing')).toBeUndefined();
  });
});
