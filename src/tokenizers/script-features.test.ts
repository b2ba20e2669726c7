import { describe, expect, it } from 'vitest';
import { extractScriptFeatures } from './script-features.ts';

describe('extractScriptFeatures', () => {
  it('classifies each script', () => {
    const features = extractScriptFeatures(
      '上下文 ひらがなカタカナ 한국어 hello wonderful 12345 ，! 😀\n\n  x',
    );
    expect(features.cjk).toBe(3);
    expect(features.kana).toBe(8);
    expect(features.hangul).toBe(3);
    expect(features.wordRuns).toBe(3);
    expect(features.longWordLetters).toBe(3);
    expect(features.digitGroups).toBe(2);
    expect(features.punctuation).toBe(2);
    expect(features.newlines).toBe(2);
    expect(features.extraSpaces).toBe(1);
    expect(features.other).toBe(1);
  });

  it('counts nothing in the empty string', () => {
    expect(Object.values(extractScriptFeatures('')).every((value) => value === 0)).toBe(true);
  });

  it('treats lone surrogates as other code points', () => {
    expect(extractScriptFeatures('\ud800').other).toBe(1);
  });
});
