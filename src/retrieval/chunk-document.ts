import { CtxloomError } from '../core/index.ts';
import type { KnowledgeDocument } from './knowledge-base.ts';

/** Options of {@link chunkDocument}. */
export interface ChunkDocumentOptions {
  /** Path shown in provenance, e.g. `docs/auth.md`. */
  file: string;
  text: string;
  /** Chunks grow paragraph by paragraph up to this many characters. Default 1200, ≥ 100. */
  maxChars?: number;
  /** Extra metadata copied to every chunk. */
  metadata?: Record<string, unknown>;
}

/**
 * Splits a text file into knowledge-base documents with line provenance: paragraphs (runs of
 * non-blank lines) are packed into chunks of at most `maxChars`; a Markdown heading always
 * starts a new chunk and is remembered as `metadata.heading`; a single paragraph longer than
 * `maxChars` is cut at line boundaries (a single longer line becomes its own chunk). Ids are
 * `file#startLine-endLine` (1-based, inclusive).
 * @example
 * await kb.add(chunkDocument({ file: 'docs/auth.md', text: await readFile('docs/auth.md', 'utf8') }));
 */
export function chunkDocument(options: ChunkDocumentOptions): KnowledgeDocument[] {
  const maxChars = options.maxChars ?? 1200;
  if (!Number.isInteger(maxChars) || maxChars < 100) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: 'maxChars must be an integer ≥ 100',
      path: 'maxChars',
    });
  }
  const lines = options.text.split(/\r?\n/);
  const chunks: KnowledgeDocument[] = [];
  let current: string[] = [];
  let start = 0;
  let heading: string | undefined;
  const flush = (next: number): void => {
    let end = next;
    while (current.length > 0 && (current.at(-1) ?? '').trim().length === 0) {
      current.pop();
      end--;
    }
    const text = current.join('\n').trim();
    if (text.length > 0) {
      chunks.push({
        id: `${options.file}#${start + 1}-${end}`,
        text,
        provenance: { file: options.file, startLine: start + 1, endLine: end },
        metadata: { ...options.metadata, ...(heading === undefined ? {} : { heading }) },
      });
    }
    current = [];
  };
  for (const [index, line] of lines.entries()) {
    const isHeading = /^#{1,6}\s/.test(line);
    const size = current.reduce((sum, entry) => sum + entry.length + 1, 0);
    const paragraphBreak = line.trim().length === 0;
    if (isHeading || (current.length > 0 && size + line.length + 1 > maxChars)) {
      flush(index);
      start = index;
    }
    if (isHeading) heading = line.replace(/^#+\s*/, '').trim();
    if (current.length === 0 && paragraphBreak) {
      start = index + 1;
      continue;
    }
    current.push(line);
  }
  flush(lines.length);
  return chunks;
}
