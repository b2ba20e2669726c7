import { describe, expect, it } from 'vitest';
import { CtxloomError } from '../core/index.ts';
import { type ErrorBody, toErrorResponse } from './error-response.ts';

const bodyOf = async (error: unknown) => {
  const response = toErrorResponse(error);
  return { status: response.status, error: ((await response.json()) as ErrorBody).error };
};

describe('toErrorResponse', () => {
  it('names the file beside the JSON path that is wrong in it', async () => {
    const thrown = new CtxloomError({
      code: 'invalid-config',
      message: 'window must be a number',
      file: 'context-config.json',
      path: 'budget.window',
      line: 3,
      column: 15,
    });
    expect(await bodyOf(thrown)).toEqual({
      status: 422,
      error: {
        code: 'invalid-config',
        message: thrown.message,
        path: 'budget.window',
        file: 'context-config.json',
        line: 3,
        column: 15,
      },
    });
  });

  it('keeps the file as path when nothing narrower is wrong, and sends no file when there is none', async () => {
    const missing = await bodyOf(
      new CtxloomError({ code: 'not-found', message: 'no file', file: 'notes/a.md' }),
    );
    expect(missing.error).toMatchObject({ path: 'notes/a.md', file: 'notes/a.md' });
    const header = await bodyOf(new CtxloomError({ code: 'forbidden', message: 'no', path: 'Host' }));
    expect(header.error).toEqual({ code: 'forbidden', message: 'no (at Host)', path: 'Host' });
  });

  it('answers anything else as a 500 internal error that says nothing of it', async () => {
    expect(await bodyOf(new Error('/home/me/secret went wrong'))).toEqual({
      status: 500,
      error: { code: 'internal', message: 'internal server error' },
    });
  });
});
