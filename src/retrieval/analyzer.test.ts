import { describe, expect, it } from 'vitest';
import { type Analyzer, createAnalyzer, distinctTermsOf } from './analyzer.ts';
import { stemEnglish } from './stem-english.ts';

describe('createAnalyzer', () => {
  it('folds NFKC compatibility forms and case', () => {
    expect(createAnalyzer().analyze('ＡＰＩ Gateway')).toEqual(['api', stemEnglish('gateway')]);
  });

  it('drops English stopwords and stems plurals and -ing forms', () => {
    expect(createAnalyzer().analyze('the dogs were running to the parks')).toEqual(['dog', 'run', 'park']);
  });

  it('turns Chinese runs into character unigrams and bigrams by default', () => {
    expect(createAnalyzer().analyze('认证方案')).toEqual(['认', '认证', '证', '证方', '方', '方案', '案']);
  });

  it('segments Chinese into dictionary words in segmenter mode and drops Chinese stopwords', () => {
    const terms = createAnalyzer({ cjk: 'segmenter' }).analyze('我们的认证方案');
    expect(terms).toContain('认证');
    expect(terms).not.toContain('的');
  });

  it('handles mixed scripts without a language option', () => {
    expect(createAnalyzer().analyze('OAuth2令牌')).toEqual(['oauth2', '令', '令牌', '牌']);
  });

  it('cuts very long tokens to maxTermLength', () => {
    const [term] = createAnalyzer({ maxTermLength: 8 }).analyze('x'.repeat(100));
    expect(term).toBe('xxxxxxxx');
  });

  it('keeps stopwords when given an empty list and skips stemming when disabled', () => {
    expect(createAnalyzer({ stopwords: new Set(), stem: false }).analyze('The dogs')).toEqual([
      'the',
      'dogs',
    ]);
  });

  it('stems each distinct word once, however often it recurs', () => {
    const stemmed: string[] = [];
    const analyzer = createAnalyzer({
      stem: (word) => {
        stemmed.push(word);
        return stemEnglish(word);
      },
    });
    expect(analyzer.analyze('Running dogs, running cats')).toEqual(['run', 'dog', 'run', 'cat']);
    expect(analyzer.analyze('dogs running parks')).toEqual(['dog', 'run', 'park']);
    expect(stemmed).toEqual(['running', 'dogs', 'cats', 'parks']);
  });

  it('rejects a maxTermLength below 1', () => {
    expect(() => createAnalyzer({ maxTermLength: 0 })).toThrow(/maxTermLength/);
  });

  it('names its configuration so saved indexes can detect a mismatch', () => {
    expect(createAnalyzer().name).not.toBe(createAnalyzer({ cjk: 'segmenter' }).name);
  });
});

describe('createAnalyzer on scripts without spaces', () => {
  it('segments Thai into words instead of one long token', () => {
    const terms = createAnalyzer().analyze('ฉันชอบกินข้าวผัด และ coffee');
    expect(terms.length).toBeGreaterThan(3);
    expect(terms).toContain(stemEnglish('coffee'));
    expect(terms.every((term) => term.length < 10)).toBe(true);
  });
});

describe('createAnalyzer on a run of millions of characters', () => {
  it('analyses a 3M-character run of Han, Thai or Cyrillic without overflowing the stack', () => {
    const analyzer = createAnalyzer();
    const han = analyzer.analyze(`${'长'.repeat(3_000_000)}。`);
    expect(han).toHaveLength(2 * 3_000_000 - 1);
    expect([han[0], han[1], han.at(-2), han.at(-1)]).toEqual(['长', '长长', '长长', '长']);
    const thai = analyzer.analyze('ก'.repeat(3_000_000));
    expect(thai.length).toBeGreaterThan(1_000_000);
    expect(thai.join('')).toBe('ก'.repeat(3_000_000));
    // A word is one term, cut to maxTermLength; after an apostrophe any letters join it.
    expect(analyzer.analyze(`${'ж'.repeat(3_000_000)} да`)).toEqual(['ж'.repeat(64), 'да']);
    expect(analyzer.analyze(`ж'${'长'.repeat(3_000_000)}`)).toEqual([`ж'${'长'.repeat(62)}`]);
  }, 60_000);
});

describe('the ASCII word table', () => {
  it('gives the same terms past the point where it is cleared, for words seen before and not', () => {
    const analyzer = createAnalyzer({ maxTermLength: 6 });
    const words = Array.from({ length: 40_000 }, (_, index) => `zq${index.toString(36)}ing`);
    const expected = (word: string) => stemEnglish(word.slice(0, 6));
    expect(analyzer.analyze(words.join(' '))).toEqual(words.map(expected));
    expect(analyzer.analyze(`${words[3]} the ${words[39_999]} ${words[3]}`)).toEqual(
      [words[3], words[39_999], words[3]].map((word) => expected(word as string)),
    );
  });
});

describe('distinctTermsOf', () => {
  it("gives a query's distinct terms once per text to every caller of an analyzer made here, and asks any other each time", () => {
    const analyzer = createAnalyzer();
    const terms = distinctTermsOf(analyzer, 'oauth token, the oauth token');
    expect(terms).toEqual(['oauth', 'token']);
    expect(distinctTermsOf(analyzer, 'oauth token, the oauth token')).toBe(terms);
    expect(distinctTermsOf(analyzer, 'painting')).toEqual([stemEnglish('painting')]);
    const other = createAnalyzer({ cjk: 'segmenter' });
    expect(distinctTermsOf(other, 'oauth token, the oauth token')).toEqual(terms);
    let calls = 0;
    const custom: Analyzer = {
      name: 'words',
      analyze: (text) => {
        calls++;
        return text.split(' ');
      },
    };
    expect(distinctTermsOf(custom, 'a b a')).toEqual(['a', 'b']);
    expect(distinctTermsOf(custom, 'a b a')).toEqual(['a', 'b']);
    expect(calls).toBe(2);
  });
});
