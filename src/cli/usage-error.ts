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

/**
 * An option's or variable's number as typed: a plain decimal integer (`-?[0-9]+`), else NaN —
 * `Number` would read `''`, `0x10`, `1e1`, `1.0` and ` 1` as 0, 16, 10 or 1.
 */
export function plainDecimal(value: string): number {
  return /^-?\d+$/u.test(value) ? Number(value) : Number.NaN;
}
