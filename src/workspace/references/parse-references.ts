import { CtxloomError } from '../../core/index.ts';
import type { InlineReference } from './reference.ts';

// A file name has an extension and no whitespace, brackets, `:` or `#`; CJK names are fine.
// Line numbers of any length: `[a.md:1:9999999999]` is a reference whose lines are out of
// range, not plain text the model receives as if it had been resolved.
const REFERENCE = /\[([^\s[\]:#()]+\.[\p{L}\p{N}_-]+)(?::(\d+)(?::(\d+))?|#([^\]\n]+))\](?!\()/gu;

/** A written line number; one past every safe integer is still past every file's end. */
const lineNumber = (digits: string): number => Math.min(Number(digits), Number.MAX_SAFE_INTEGER);

/** A line reference written with an empty or reversed range (`[a.md:30:12]`, `[a.md:0:1]`). */
export interface EmptyRangeReference {
  path: string;
  startLine: number;
  endLine: number;
  /** The reference as written, brackets included. */
  raw: string;
  /** UTF-16 offset of `[` in the text. */
  offset: number;
}

/** Result of {@link scanReferences}: the well-formed references and the empty-range ones, in text order. */
export interface ScannedReferences {
  references: InlineReference[];
  emptyRanges: EmptyRangeReference[];
}

/**
 * Finds every inline reference of a text without throwing: the well-formed ones, and the line
 * references whose range is empty or reversed (so a caller can name all of them at once).
 */
export function scanReferences(text: string): ScannedReferences {
  const references: InlineReference[] = [];
  const emptyRanges: EmptyRangeReference[] = [];
  for (const match of text.matchAll(REFERENCE)) {
    const [raw, path = '', start, end, block] = match;
    const offset = match.index;
    if (block !== undefined) {
      const id = block.trim();
      if (id === '') continue;
      references.push({ type: 'block', path, block: id, raw, offset });
      continue;
    }
    const startLine = lineNumber(start ?? '');
    const endLine = end === undefined ? startLine : lineNumber(end);
    if (startLine < 1 || endLine < startLine) emptyRanges.push({ path, startLine, endLine, raw, offset });
    else references.push({ type: 'lines', path, startLine, endLine, raw, offset });
  }
  return { references, emptyRanges };
}

/**
 * Finds the inline references of a text: line references `[guidance.md:12:30]` (or
 * `[guidance.md:12]` for one line) and block references `[profile.md#学习目标/已有基础]`.
 * Markdown links (`[x.md](…)`) are not references. Throws `invalid-argument` naming the
 * first reference whose line range is empty or reversed ({@link scanReferences} returns them
 * all instead).
 * @example
 * parseReferences('这段是什么意思 [guidance.md:12:30]')
 * // → [{ type: 'lines', path: 'guidance.md', startLine: 12, endLine: 30, raw: '[guidance.md:12:30]', offset: 8 }]
 */
export function parseReferences(text: string): InlineReference[] {
  const { references, emptyRanges } = scanReferences(text);
  const empty = emptyRanges[0];
  if (empty !== undefined) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `reference ${empty.raw} has an empty line range (lines are 1-based and start ≤ end)`,
      file: empty.path,
      path: empty.raw,
    });
  }
  return references;
}
