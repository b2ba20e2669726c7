import { describe, expect, it } from 'vitest';
import { createTextMemo } from './text-memo.ts';

describe('createTextMemo', () => {
  it('computes a text once while it is held, and again after the memo was cleared by either bound', () => {
    const computed: string[] = [];
    const compute = (text: string) => {
      computed.push(text);
      return text.length;
    };
    const byCount = createTextMemo<number>({ maxTexts: 2, maxCharacters: 100 });
    expect([byCount.get('a', compute), byCount.get('bb', compute), byCount.get('a', compute)]).toEqual([
      1, 2, 1,
    ]);
    expect(computed).toEqual(['a', 'bb']);
    byCount.get('ccc', compute); // the third text: cleared, then held alone
    byCount.get('a', compute);
    expect(computed).toEqual(['a', 'bb', 'ccc', 'a']);

    computed.length = 0;
    const byCharacters = createTextMemo<number>({ maxTexts: 10, maxCharacters: 5 });
    byCharacters.get('abc', compute);
    byCharacters.get('abc', compute);
    byCharacters.get('defg', compute); // 3 + 4 > 5: cleared first
    byCharacters.get('abc', compute);
    expect(computed).toEqual(['abc', 'defg', 'abc']);
  });
});
