/**
 * What the estimator counts in a text, by script class. Each field is a count the estimator
 * multiplies by a fitted rate (see {@link ESTIMATOR_RATES}).
 */
export interface ScriptFeatures {
  /** Han ideographs (CJK unified, extensions, compatibility). */
  cjk: number;
  /** Hiragana and katakana characters. */
  kana: number;
  /** Hangul syllables and jamo. */
  hangul: number;
  /** Runs of other letters (Latin, Cyrillic, Greek, …) with their combining marks. */
  wordRuns: number;
  /** Letters beyond the 6th in each word run (long words split into more tokens). */
  longWordLetters: number;
  /** Groups of up to 3 digits (o200k and cl100k split digit runs in threes). */
  digitGroups: number;
  /** Punctuation and ASCII symbols, ASCII or full-width. */
  punctuation: number;
  /** Line breaks. */
  newlines: number;
  /** Whitespace characters beyond the first in each run of spaces or tabs. */
  extraSpaces: number;
  /** Emoji, pictographs and every other code point not covered above. */
  other: number;
}

const WORD_SPLIT_LETTERS = 6;
const CJK = /\p{Script=Han}/u;
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}ー]/u;
const HANGUL = /\p{Script=Hangul}/u;
const LETTER_OR_MARK = /[\p{L}\p{M}]/u;
const PUNCTUATION = /[\p{P}\p{Sm}\p{Sc}\p{Sk}]/u;
const WHITESPACE = /\s/u;

/** An all-zero {@link ScriptFeatures}. */
export function emptyScriptFeatures(): ScriptFeatures {
  return {
    cjk: 0,
    kana: 0,
    hangul: 0,
    wordRuns: 0,
    longWordLetters: 0,
    digitGroups: 0,
    punctuation: 0,
    newlines: 0,
    extraSpaces: 0,
    other: 0,
  };
}

type CharClass =
  | 'letter'
  | 'digit'
  | 'space'
  | 'newline'
  | 'punctuation'
  | 'cjk'
  | 'kana'
  | 'hangul'
  | 'other';

/**
 * Classifies every code point of `text` in one pass. ASCII and the main CJK block are
 * classified by range; other code points by Unicode script and category. Lone surrogates
 * count as `other`.
 */
export function extractScriptFeatures(text: string): ScriptFeatures {
  const features = emptyScriptFeatures();
  let wordLength = 0;
  let digitRun = 0;
  let spaceRun = 0;
  for (const char of text) {
    const charClass = classify(char);
    if (charClass === 'letter') {
      if (wordLength === 0) features.wordRuns++;
      wordLength++;
      spaceRun = 0;
      continue;
    }
    if (wordLength > WORD_SPLIT_LETTERS) features.longWordLetters += wordLength - WORD_SPLIT_LETTERS;
    wordLength = 0;
    if (charClass === 'digit') {
      digitRun++;
      spaceRun = 0;
      continue;
    }
    features.digitGroups += Math.ceil(digitRun / 3);
    digitRun = 0;
    if (charClass === 'space') {
      if (spaceRun > 0) features.extraSpaces++;
      spaceRun++;
      continue;
    }
    spaceRun = 0;
    if (charClass === 'newline') features.newlines++;
    else features[charClass]++;
  }
  if (wordLength > WORD_SPLIT_LETTERS) features.longWordLetters += wordLength - WORD_SPLIT_LETTERS;
  features.digitGroups += Math.ceil(digitRun / 3);
  return features;
}

function classify(char: string): CharClass {
  const code = char.codePointAt(0) as number;
  if (code < 0x80) {
    if ((code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a)) return 'letter';
    if (code >= 0x30 && code <= 0x39) return 'digit';
    if (code === 0x20 || code === 0x09) return 'space';
    if (code === 0x0a || code === 0x0d) return 'newline';
    return code > 0x20 && code !== 0x7f ? 'punctuation' : 'other';
  }
  if (code >= 0x4e00 && code <= 0x9fff) return 'cjk';
  if (CJK.test(char)) return 'cjk';
  if (KANA.test(char)) return 'kana';
  if (HANGUL.test(char)) return 'hangul';
  if (LETTER_OR_MARK.test(char)) return 'letter';
  if (PUNCTUATION.test(char)) return 'punctuation';
  if (WHITESPACE.test(char)) return 'space';
  return 'other';
}
