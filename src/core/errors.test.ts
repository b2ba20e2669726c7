import { describe, expect, it } from 'vitest';
import { CtxloomError } from './errors.ts';

describe('CtxloomError', () => {
  it('names the file, line and path it is about', () => {
    const error = new CtxloomError({
      code: 'parse-error',
      message: 'bad',
      file: 'a.json',
      line: 3,
      path: 'x',
    });
    expect(error.message).toBe('bad (a.json:3 at x)');
  });

  it('adds no empty brackets when the file is the folder itself (an empty path)', () => {
    const error = new CtxloomError({
      code: 'invalid-argument',
      message: 'is a folder, not a file',
      file: '',
    });
    expect(error.message).toBe('is a folder, not a file');
  });

  it('names no JSON path when the whole value is wrong (an empty path)', () => {
    const error = new CtxloomError({
      code: 'invalid-config',
      message: 'invalid curation log: expected object',
      file: 'memory.json',
      line: 1,
      column: 1,
      path: '',
    });
    expect(error.message).toBe('invalid curation log: expected object (memory.json:1:1)');
    expect(error.toJSON()).toMatchObject({ path: '' });
  });
});
