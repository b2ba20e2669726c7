import { CtxloomError } from '../../core/index.ts';

/**
 * Refuses text a file cannot hold and read back as the same text (`invalid-argument` naming
 * `path`): a lone surrogate, which UTF-8 cannot store (it would read back as U+FFFD), and a
 * NUL, which marks a file as binary when it is read.
 */
export function assertStorableText(text: string, path: string): void {
  if (!text.isWellFormed()) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: 'text has a lone surrogate (half of a UTF-16 pair), which UTF-8 cannot store',
      file: path,
    });
  }
  if (text.includes('\0')) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: 'text has a NUL character (U+0000); a file holding one reads as binary',
      file: path,
    });
  }
}
