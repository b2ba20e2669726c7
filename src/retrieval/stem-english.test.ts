import { describe, expect, it } from 'vitest';
import { stemEnglish } from './stem-english.ts';

describe('stemEnglish', () => {
  it('maps inflections of one word to one stem', () => {
    expect(new Set(['make', 'makes', 'making'].map(stemEnglish)).size).toBe(1);
    expect(new Set(['paint', 'painted', 'painting', 'paints'].map(stemEnglish)).size).toBe(1);
    expect(stemEnglish('stories')).toBe(stemEnglish('story'));
  });

  it('undoubles a consonant left by -ing', () => {
    expect(stemEnglish('running')).toBe('run');
  });

  it('leaves -ss words and short words alone', () => {
    expect(stemEnglish('class')).toBe('class');
    expect(stemEnglish('at')).toBe('at');
  });
});
