import { describe, expect, it } from 'vitest';
import type { Message } from '../core/index.ts';
import { rewriteQuery } from './query-rewriter.ts';

describe('rewriteQuery', () => {
  it('appends frequent content words of recent messages in the seed format', () => {
    const result = rewriteQuery({
      query: '认证方案',
      messages: ['我们用 OAuth2 获取 token', 'OAuth2 的 token 要注意安全', '安全第一'],
    });
    expect(result.query.startsWith('认证方案 [')).toBe(true);
    expect(result.addedWords.slice(0, 3)).toEqual(['OAuth2', 'token', '安全']);
    expect(result.query).toBe(`认证方案 [${result.addedWords.join(' ')}]`);
  });

  it('reads only the last recentMessages messages', () => {
    const messages = ['alpha alpha alpha', 'beta', 'gamma'];
    expect(rewriteQuery({ query: 'q', messages, recentMessages: 2 }).addedWords).toEqual(['beta', 'gamma']);
  });

  it('appends at most topK words, skipping stopwords and words already in the query', () => {
    const result = rewriteQuery({
      query: 'database migration',
      messages: ['the database migration uses postgres and flyway, the postgres version is 16 with replicas'],
      topK: 2,
    });
    expect(result.addedWords).toEqual(['postgres', 'flyway']);
  });

  it('counts inflections of one English word together', () => {
    const result = rewriteQuery({ query: 'x', messages: ['tokens token token', 'lambdas lambda'] });
    expect(result.addedWords).toEqual(['tokens', 'lambdas']);
  });

  it('reads text parts of structured messages', () => {
    const message: Message = {
      id: 'm1',
      role: 'user',
      content: [{ type: 'text', text: 'kubernetes kubernetes' }],
    };
    expect(rewriteQuery({ query: 'deploy', messages: [message] }).addedWords).toEqual(['kubernetes']);
  });

  it('leaves the query unchanged when nothing qualifies', () => {
    expect(rewriteQuery({ query: 'hello', messages: ['the and of', '!!!'] })).toEqual({
      query: 'hello',
      original: 'hello',
      addedWords: [],
    });
  });

  it('rejects negative settings', () => {
    expect(() => rewriteQuery({ query: 'q', messages: [], topK: -1 })).toThrow(/topK/);
  });
});
