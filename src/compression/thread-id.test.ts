import { describe, expect, it } from 'vitest';
import { CtxloomError } from '../core/index.ts';
import { formatThreadId, isThreadId, parseThreadId } from './thread-id.ts';

describe('formatThreadId', () => {
  it('builds <app>:user:<userId>:session:<sessionId> and parses it back', () => {
    const threadId = formatThreadId({ app: 'etl', userId: 'alice', sessionId: 'w-1' });
    expect(threadId).toBe('etl:user:alice:session:w-1');
    expect(parseThreadId(threadId)).toEqual({ app: 'etl', userId: 'alice', sessionId: 'w-1' });
    expect(isThreadId(threadId)).toBe(true);
  });

  it('refuses parts that would make two sessions share a key', () => {
    expect(() => formatThreadId({ app: 'etl', userId: 'a:session:b', sessionId: 'c' })).toThrow(CtxloomError);
    expect(() => formatThreadId({ app: 'ETL', userId: 'a', sessionId: 'b' })).toThrow(/app/);
    expect(() => parseThreadId('etl:session:b')).toThrow(/thread id/);
  });
});
