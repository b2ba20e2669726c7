/** A line reference `[file.md:12:30]`: lines 12..30 (1-based, inclusive) of `path`. */
export interface LineReference {
  type: 'lines';
  path: string;
  startLine: number;
  endLine: number;
}

/** A block reference `[file.md#父/子]`: a block by V1 heading path or V2 short id. */
export interface BlockReference {
  type: 'block';
  path: string;
  block: string;
}

/** A reference to part of a workspace file (seed 003's two granularities). */
export type Reference = LineReference | BlockReference;

/** A reference found inline in a text, with where it was written. */
export type InlineReference = Reference & {
  /** The reference as written, brackets included. */
  raw: string;
  /** UTF-16 offset of `[` in the text. */
  offset: number;
};

/** The canonical written form of a reference: `[path:s:e]` or `[path#block]`. */
export function formatReference(reference: Reference): string {
  return reference.type === 'lines'
    ? `[${reference.path}:${reference.startLine}:${reference.endLine}]`
    : `[${reference.path}#${reference.block}]`;
}
