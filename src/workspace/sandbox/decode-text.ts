import { CtxloomError } from '../../core/index.ts';

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Decodes file bytes as UTF-8 text (a leading BOM is dropped). Throws `unsupported` for binary
 * content (a NUL byte in the first 8 KiB) and `parse-error` for invalid UTF-8, naming `file`
 * and, for bad UTF-8, the 1-based line where decoding failed.
 */
export function decodeText(bytes: Uint8Array, file: string): string {
  const head = bytes.subarray(0, 8192);
  if (head.includes(0)) {
    throw new CtxloomError({ code: 'unsupported', message: 'binary file: not readable as text', file });
  }
  try {
    return decoder.decode(bytes);
  } catch (cause) {
    throw new CtxloomError({
      code: 'parse-error',
      message: 'file is not valid UTF-8',
      file,
      line: firstInvalidLine(bytes),
      cause,
    });
  }
}

function firstInvalidLine(bytes: Uint8Array): number {
  let line = 1;
  let start = 0;
  for (let index = 0; index <= bytes.length; index++) {
    if (index === bytes.length || bytes[index] === 0x0a) {
      try {
        decoder.decode(bytes.subarray(start, index));
      } catch {
        return line;
      }
      line++;
      start = index + 1;
    }
  }
  return line;
}
