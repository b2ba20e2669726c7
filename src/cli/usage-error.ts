import { CtxloomError } from '../core/index.ts';

/** A command-line usage error (exit code 2), naming the argument that is wrong. */
export function usageError(message: string, argument?: string): CtxloomError {
  return new CtxloomError({
    code: 'invalid-argument',
    message,
    ...(argument === undefined ? {} : { path: argument }),
    details: { usage: true },
  });
}
