import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkJsonDepth } from './check-json-depth.ts';

/** The naive reference: the depth of the deepest value (the root is 0; `[]` adds none). */
function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const children = Object.values(value);
  return children.length === 0 ? 0 : 1 + Math.max(...children.map(depthOf));
}

function refuses(text: string, maxDepth: number): boolean {
  try {
    checkJsonDepth(text, 'x.json', maxDepth);
    return false;
  } catch {
    return true;
  }
}

describe('checkJsonDepth', () => {
  it('refuses exactly the values deeper than the limit, whatever the strings hold (property)', () => {
    // Strings full of brackets, quotes and backslashes must not count as nesting.
    const text = fc.string({ unit: fc.constantFrom('[', ']', '{', '}', '"', '\\', 'a', ' ', '\n') });
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        text,
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        tie('list'),
        tie('map'),
      ),
      list: fc.array(tie('node'), { maxLength: 3 }),
      map: fc.dictionary(text, tie('node'), { maxKeys: 3 }),
    })).node;
    fc.assert(
      fc.property(
        value,
        fc.integer({ min: 0, max: 6 }),
        fc.constantFrom(undefined, 2),
        (json, maxDepth, indent) => {
          const source = JSON.stringify(json, null, indent);
          expect(refuses(source, maxDepth)).toBe(depthOf(json) > maxDepth);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('names the line and column of the first value past the limit', () => {
    const text = '{\n  "a": [\n    [1],\n    [[2]]\n  ]\n}';
    // `2` is at depth 4: the root object 0, its array 1, `[[2]]` 2, `[2]` 3.
    expect(() => checkJsonDepth(text, 'deep.json', 3)).toThrow(
      expect.objectContaining({ code: 'parse-error', file: 'deep.json', line: 4, column: 7 }),
    );
    expect(() => checkJsonDepth(text, 'deep.json', 4)).not.toThrow();
  });

  it('leaves invalid JSON to the parser: an unterminated string or stray closers pass', () => {
    for (const text of ['["abc', '"\\"', ']]]', '{"a": [1, 2}']) {
      expect(refuses(text, 4), text).toBe(false);
    }
  });
});
