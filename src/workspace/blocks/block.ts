/**
 * Where a block sits in its file. Lines are 1-based and inclusive.
 * - `startLine` — the heading line (the first line of a setext heading; the key's line in JSON).
 * - `endLine` — the last non-blank line of the block's own text, before its first child.
 * - `sectionEndLine` — the last non-blank line of the whole section, children included.
 */
export interface BlockSource {
  file: string;
  startLine: number;
  endLine: number;
  sectionEndLine: number;
}

/**
 * A block of a file (seed 003): a Markdown heading section or a JSON member, nested.
 * `content` is the block's own text without its heading and without child blocks.
 */
export interface Block {
  /** V1 id: the heading path, e.g. `基本信息/教育背景`; `/` inside a heading is escaped as `\/`. */
  id: string;
  /** V2 id: persistent short id from the sidecar file, when one was assigned. */
  shortId?: string;
  /** Heading text (inline Markdown flattened to text) or the JSON key. */
  heading: string;
  /** `#` = 1 … `######` = 6; JSON depth (1 for top-level keys). */
  level: number;
  content: string;
  children: Block[];
  source: BlockSource;
}

/** Separator between the segments of a V1 block id. */
export const BLOCK_PATH_SEPARATOR = '/';
