import { describe, expect, it } from 'vitest';
import { scoreImportance } from './importance-scorer.ts';

describe('scoreImportance', () => {
  it('scores decisions, corrections, requirements and preferences in English and Chinese', () => {
    expect(scoreImportance({ id: '1', role: 'assistant', content: 'We agreed to ship on Friday.' })).toEqual({
      score: 0.8,
      reasons: ['decision'],
    });
    expect(scoreImportance({ id: '2', role: 'user', content: '错了，应该是周五' }).reasons).toEqual([
      'correction',
    ]);
    expect(scoreImportance({ id: '3', role: 'user', content: '接口必须返回 JSON' }).score).toBe(0.7);
    expect(scoreImportance({ id: '4', role: 'user', content: 'I prefer short answers' }).score).toBe(0.6);
  });

  it('takes the highest matching rule, not the sum', () => {
    expect(
      scoreImportance({ id: '1', role: 'user', content: 'Actually we decided it must be Rust' }),
    ).toEqual({
      score: 0.8,
      reasons: ['decision', 'correction', 'requirement'],
    });
  });

  it('applies user-only rules only to user messages and scores small talk 0', () => {
    expect(scoreImportance({ id: '1', role: 'assistant', content: 'I prefer tea' }).score).toBe(0);
    expect(scoreImportance({ id: '2', role: 'user', content: 'hello, how are you?' }).score).toBe(0);
  });
});
