import { CtxloomError } from '../../core/index.ts';
import type { InlineReference } from './reference.ts';

// A file name has an extension and no whitespace, brackets, `:` or `#`; CJK names are fine.
const REFERENCE = /\[([^\s[\]:#()]+\.[\p{L}\p{N}_-]+)(?::(\d{1,9})(?::(\d{1,9}))?|#([^\]\n]+))\](?!\()/gu;

/**
 * Finds the inline references of a text: line references `[guidance.md:12:30]` (or
 * `[guidance.md:12]` for one line) and block references `[profile.md#学习目标/已有基础]`.
 * Markdown links (`[x.md](…)`) are not references. Throws `invalid-argument` naming the
 * reference when a line range is empty or reversed.
 * @example
 * parseReferences('这段是什么意思 [guidance.md:12:30]')
 * // → [{ type: 'lines', path: 'guidance.md', startLine: 12, endLine: 30, raw: '[guidance.md:12:30]', offset: 8 }]
 */
export function parseReferences(text: string): InlineReference[] {
  const references: InlineReference[] = [];
  for (const match of text.matchAll(REFERENCE)) {
    const [raw, path = '', start, end, block] = match;
    const offset = match.index;
    if (block !== undefined) {
      const id = block.trim();
      if (id === '') continue;
      references.push({ type: 'block', path, block: id, raw, offset });
      continue;
    }
    const startLine = Number(start);
    const endLine = end === undefined ? startLine : Number(end);
    if (startLine < 1 || endLine < startLine) {
      throw new CtxloomError({
        code: 'invalid-argument',
        message: `reference ${raw} has an empty line range (lines are 1-based and start ≤ end)`,
        file: path,
        path: raw,
      });
    }
    references.push({ type: 'lines', path, startLine, endLine, raw, offset });
  }
  return references;
}
