import { CtxloomError } from '../../core/index.ts';
import { isHighSurrogate } from '../../core/surrogates.ts';

/**
 * A change `Sandbox.update` writes as: the first `keep` characters of the current text,
 * then `insert`. An append to a large file (a session's record) costs the appended text, not
 * the file: the kept part's bytes are copied as read, never encoded again.
 */
export interface TextEdit {
  keep: number;
  insert: string;
}

/** A file as read: its decoded text and its bytes. */
export interface ReadFile {
  text: string;
  bytes: Uint8Array;
}

/** The text and bytes `edit` makes of `current`; only the inserted text is encoded. */
export function applyEdit(
  current: ReadFile | undefined,
  edit: TextEdit,
  path: string,
): { text: string; encoded: Uint8Array } {
  const text = current?.text ?? '';
  const { keep, insert } = edit;
  if (!Number.isInteger(keep) || keep < 0 || keep > text.length) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `an edit keeps ${keep} characters of a text of ${text.length}; nothing was written`,
      file: path,
    });
  }
  const next = text.slice(0, keep) + insert;
  const bytes = current?.bytes;
  const splitsPair = keep > 0 && keep < text.length && isHighSurrogate(text.charCodeAt(keep - 1));
  // A BOM is read but not part of the text: such a file, or a cut inside a surrogate pair,
  // is encoded whole.
  if (bytes === undefined || splitsPair || (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)) {
    return { text: next, encoded: Buffer.from(next, 'utf8') };
  }
  const kept = bytes.byteLength - Buffer.byteLength(text.slice(keep), 'utf8');
  return { text: next, encoded: Buffer.concat([bytes.subarray(0, kept), Buffer.from(insert, 'utf8')]) };
}
