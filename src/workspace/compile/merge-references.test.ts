import { CtxloomError, type Message } from 'ctxloom';
import { describe, expect, it } from 'vitest';
import { parseMarkdownDocument } from '../blocks/parse-markdown-blocks.ts';
import {
  createBlockSearchBudget,
  DEFAULT_CLOSEST_BLOCK_WORK,
  DEFAULT_MESSAGE_CLOSEST_BLOCK_WORK,
} from '../blocks/resolve-block.ts';
import { badReferencesOf } from '../references/bad-reference.ts';
import type { LoadedFile } from '../references/resolve-reference.ts';
import { deliveredManifestReferences, manifestReferenceKey, mergeReferences } from './merge-references.ts';

const load = (path: string, text: string): LoadedFile => {
  const document = parseMarkdownDocument(text, path);
  return { path, lines: document.lines, blocks: document.blocks };
};
const guidance = load('guidance.md', '# 指南\n先讲直觉\n再讲公式\n# 练习\n做题\n');
const files = new Map([['guidance.md', guidance]]);
const lookup = (path: string) => files.get(path);

const refusal = (run: () => unknown): CtxloomError => {
  try {
    run();
  } catch (error) {
    if (CtxloomError.is(error)) return error;
    throw error;
  }
  throw new Error('expected an invalid-reference error');
};

describe('mergeReferences', () => {
  it('names every bad reference of the message and of the manifest in one error, in the order written', () => {
    const query =
      '看 [nope.md:1:3] 和 [guidance.md:999:1000]，[guidance.md#作业] [guidance.md:5:2] [nope.md:1:3]';
    const error = refusal(() =>
      mergeReferences({
        query,
        references: [
          { path: 'guidance.md', startLine: 1, endLine: 2 },
          { path: 'gone.md', block: 'x' },
        ],
        lookup,
      }),
    );
    expect(error.code).toBe('invalid-reference');
    const bad = badReferencesOf(error) ?? [];
    expect(bad.map(({ raw, source, reason }) => [raw, source, reason])).toEqual([
      ['[nope.md:1:3]', 'message', 'missing-file'],
      ['[guidance.md:999:1000]', 'message', 'lines-out-of-range'],
      ['[guidance.md#作业]', 'message', 'missing-block'],
      ['[guidance.md:5:2]', 'message', 'empty-range'],
      ['[nope.md:1:3]', 'message', 'missing-file'],
      ['[gone.md#x]', 'manifest', 'missing-file'],
    ]);
    // Offsets point at each occurrence as written; the manifest's by index.
    for (const reference of bad.filter((entry) => entry.source === 'message')) {
      const offset = reference.offset ?? -1;
      expect(query.slice(offset, offset + reference.raw.length)).toBe(reference.raw);
    }
    expect(bad[0]?.offset).toBe(2);
    expect(bad[4]?.offset).toBe(query.lastIndexOf('[nope.md'));
    expect(bad[5]).toMatchObject({ index: 1, path: 'gone.md', block: 'x' });
    expect(bad[1]).toMatchObject({ path: 'guidance.md', startLine: 999, endLine: 1000, lineCount: 5 });
    expect(bad[2]).toMatchObject({ block: '作业' });
    // The message names each one, one per line (what the CLI prints).
    for (const reference of bad) expect(error.message).toContain(reference.raw);
    expect(error.message.split('\n')).toHaveLength(7);
  });

  it('names a line number too large for any file as out of range (it was sent as plain text)', () => {
    const error = refusal(() =>
      mergeReferences({ query: '看 [guidance.md:1:9999999999]', references: [], lookup }),
    );
    expect(badReferencesOf(error)).toMatchObject([
      {
        raw: '[guidance.md:1:9999999999]',
        reason: 'lines-out-of-range',
        endLine: 9_999_999_999,
        lineCount: 5,
      },
    ]);
    // Past the safe integers the number is read as the largest one, and named as written.
    const huge = refusal(() =>
      mergeReferences({ query: '看 [guidance.md:3:123456789012345678901234567890]', references: [], lookup }),
    );
    const [bad] = badReferencesOf(huge) ?? [];
    expect(bad).toMatchObject({ reason: 'lines-out-of-range', endLine: Number.MAX_SAFE_INTEGER });
    expect(bad?.message).toBe(
      'lines 3-123456789012345678901234567890 are outside guidance.md (it has 5 lines)',
    );
    // 200,000 digits: the messages name them shortened; `raw` stays whole (the UI's spans).
    const written = `[guidance.md:3:${'9'.repeat(200_000)}]`;
    const long = refusal(() => mergeReferences({ query: `看 ${written}`, references: [], lookup }));
    const [longest] = badReferencesOf(long) ?? [];
    expect(longest?.raw).toBe(written);
    expect(longest?.message.length).toBeLessThan(120);
    expect(long.message.length).toBeLessThan(400);
  });

  it('names a file the loader could not read, with the reason of its error', () => {
    const error = refusal(() =>
      mergeReferences({
        query: '[../other/notes.md:1:2] [guidance.md:1:2]',
        references: [],
        lookup,
        failures: new Map([
          ['../other/notes.md', new CtxloomError({ code: 'path-escape', message: 'escapes the sandbox' })],
        ]),
      }),
    );
    expect(badReferencesOf(error)).toEqual([
      expect.objectContaining({ raw: '[../other/notes.md:1:2]', reason: 'outside-session', offset: 0 }),
    ]);
  });

  it('rethrows a storage failure instead of blaming the reference', () => {
    const failure = new CtxloomError({ code: 'storage-error', message: 'disk gone' });
    expect(() =>
      mergeReferences({
        query: '[a.md:1:2]',
        references: [],
        lookup,
        failures: new Map([['a.md', failure]]),
      }),
    ).toThrow(failure);
  });

  it('sends a passage once when the manifest and the message name it, in any form', () => {
    const merged = mergeReferences({
      // The block 练习 is lines 4-5; 4:5 inline, the block in the manifest, and 5:5 inside it.
      query: '这两行 [guidance.md:4:5] 和 [guidance.md:5]',
      references: [
        { path: 'guidance.md', block: '练习' },
        { path: 'guidance.md', startLine: 4, endLine: 5 },
      ],
      lookup,
    });
    expect(merged.text.match(/<reference /gu)).toHaveLength(1);
    expect(merged.text.match(/做题/gu)).toHaveLength(1);
    expect(merged.resolved.map((reference) => [reference.startLine, reference.endLine])).toEqual([[4, 5]]);
    // Both manifest references went with this message.
    expect(merged.attached).toEqual(['[guidance.md#练习]', '[guidance.md:4:5]']);
  });

  it('lets a wider reference replace the passages it covers, in the place of the first', () => {
    const merged = mergeReferences({
      query: '[guidance.md:2:2] [guidance.md:4:4] [guidance.md:3:3]',
      references: [{ path: 'guidance.md', startLine: 1, endLine: 3 }],
      lookup,
    });
    expect(merged.resolved.map((reference) => [reference.startLine, reference.endLine])).toEqual([
      [1, 3],
      [4, 4],
    ]);
  });

  it('leaves out manifest references an earlier message carried', () => {
    const references = [
      { path: 'guidance.md', startLine: 1, endLine: 2 },
      { path: 'guidance.md', block: '练习' },
    ];
    const history: Message[] = [
      { id: 'u1', role: 'user', content: 'hi', metadata: { manifestReferences: ['[guidance.md:1:2]'] } },
    ];
    const merged = mergeReferences({
      query: 'next',
      references,
      lookup,
      delivered: deliveredManifestReferences(history),
    });
    expect(merged.attached).toEqual([manifestReferenceKey({ path: 'guidance.md', block: '练习' })]);
    expect(merged.text).not.toContain('先讲直觉');
    // The message that carried them, compiled again (a later model step), still carries them.
    expect(deliveredManifestReferences(history, 'u1').size).toBe(0);
  });

  it('bounds the closest-block searches of 300 missing block ids together, naming every one', () => {
    // Issue #27: each missing id searched the whole file; 300 of them over 20,000 headings took 17 s.
    const big = load(
      'big.md',
      Array.from({ length: 20_000 }, (_, index) => `${'#'.repeat((index % 6) + 1)} Heading ${index}\n`).join(
        '\n',
      ),
    );
    const query = Array.from({ length: 300 }, (_, index) => `[big.md#Section about thing ${index}]`).join(
      ' ',
    );
    const budget = createBlockSearchBudget();
    const error = refusal(() =>
      mergeReferences({
        query,
        references: [],
        lookup: (path) => (path === 'big.md' ? big : undefined),
        budget,
      }),
    );
    const bad = badReferencesOf(error) ?? [];
    expect(bad).toHaveLength(300);
    expect(bad.every((reference) => reference.reason === 'missing-block')).toBe(true);
    // The work spent is the message's limit at most: a few searches, then none.
    const spent = DEFAULT_MESSAGE_CLOSEST_BLOCK_WORK - budget.remainingWork;
    expect(spent).toBeLessThanOrEqual(DEFAULT_MESSAGE_CLOSEST_BLOCK_WORK);
    const searched = bad.filter((reference) => reference.closestBlock !== undefined);
    expect(searched.length).toBeGreaterThan(0);
    // Each search spends up to DEFAULT_CLOSEST_BLOCK_WORK; here five partial searches use the limit up.
    expect(searched.length).toBeLessThanOrEqual(5);
    expect(spent).toBeGreaterThan(DEFAULT_CLOSEST_BLOCK_WORK);
    expect(bad.at(-1)?.message).toContain("this message's search limit is spent");
  });
});
