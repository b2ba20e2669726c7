import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createBpeMerger } from './bpe-merge.ts';
import { type EncodingName, loadEncodingTables } from './encodings.ts';

// Characters around which o200k and cl100k have tokens of every kind: whole words of two or
// more Han characters, kana, hangul, Latin with diacritics, and tokens holding part of a
// character before (京信美牌讯门果读运…) or after (彩电어아밝フー) a whole one.
const characters = fc.oneof(
  fc.constantFrom(
    ...'上下文工程把每次模型调用的输入编译出来我们是的了在中国人，。「」、ひらがなカタカナ한국어문장éüñß²€—“”…々〇ー',
    ...'京信美牌讯门果读运凰除览取蛛乐江菜西麟名称客覽物翠이니다제글게영彩电아밝フ',
  ),
  fc.integer({ min: 0x80, max: 0xffff }).map((code) => String.fromCharCode(code)),
  fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
);
const piece = fc.array(characters, { minLength: 2, maxLength: 24 }).map((list) => list.join(''));

describe('piece splits', () => {
  for (const encoding of ['o200k_base', 'cl100k_base'] as const satisfies readonly EncodingName[]) {
    const tables = loadEncodingTables(encoding);
    const merger = createBpeMerger(tables);
    const count = (text: string) => (tables.isToken(text) ? 1 : merger.countPiece(text));

    it(`splits a piece's byte-pair count exactly where it says (${encoding})`, () => {
      let splits = 0;
      fc.assert(
        fc.property(piece, (text) => {
          for (let index = 1; index < text.length; index++) {
            if (!tables.splits.isSplit(text.charCodeAt(index - 1), text.charCodeAt(index))) continue;
            splits++;
            expect(count(text.slice(0, index)) + count(text.slice(index))).toBe(count(text));
          }
        }),
        { numRuns: 1000 },
      );
      // The property is not vacuous: most places between these characters are splits.
      expect(splits).toBeGreaterThan(1000);
    });
  }

  it('does not split inside a word that is one token, nor around surrogates or between ASCII', () => {
    const { splits, isToken } = loadEncodingTables('o200k_base');
    expect(isToken('我们')).toBe(true);
    expect(splits.isSplit('我'.charCodeAt(0), '们'.charCodeAt(0))).toBe(false);
    expect(splits.isSplit('a'.charCodeAt(0), 'b'.charCodeAt(0))).toBe(false);
    expect(splits.isSplit('中'.charCodeAt(0), 0xd83d)).toBe(false);
    expect(splits.isSplit(0xde00, '中'.charCodeAt(0))).toBe(false);
    // …and does split a Chinese sentence into short words.
    const sentence = '上下文工程把每次模型调用的输入编译出来';
    let cuts = 0;
    for (let index = 1; index < sentence.length; index++) {
      if (splits.isSplit(sentence.charCodeAt(index - 1), sentence.charCodeAt(index))) cuts++;
    }
    expect(cuts).toBeGreaterThan(sentence.length / 3);
  });
});
