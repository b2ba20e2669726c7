import { CtxloomError } from '../../core/index.ts';
import type { Block } from '../blocks/block.ts';
import { type BlockSearchBudget, resolveBlock } from '../blocks/resolve-block.ts';
import { formatReference, type Reference } from './reference.ts';

/** A file as the reference resolver sees it: already loaded, split into lines, maybe parsed. */
export interface LoadedFile {
  path: string;
  lines: readonly string[];
  /** Blocks of the file; required for block references. */
  blocks?: readonly Block[];
}

/** A reference with its text and provenance. */
export interface ResolvedReference {
  reference: Reference;
  path: string;
  startLine: number;
  endLine: number;
  text: string;
  /** V1 id of the block, for block references (after any closest-match fallback). */
  blockId?: string;
  /** Set when a block id was not found and the closest block was used instead. */
  warning?: string;
}

/**
 * Resolves one reference against loaded files. Line references read the lines directly;
 * block references find the block (V1 path, V2 short id, else closest match with a warning)
 * and read its whole section. Throws `not-found` naming the missing file, block or range (with
 * the file's length, or the closest block); pure. `options.budget` bounds the closest-block
 * searches of a batch of references together (see `resolveBlock`); `options.index` gives a
 * file's blocks by id (`indexBlocks`, built once per file for a batch).
 */
export function resolveReference(
  reference: Reference,
  lookup: (path: string) => LoadedFile | undefined,
  options: { budget?: BlockSearchBudget; index?: (file: LoadedFile) => ReadonlyMap<string, Block> } = {},
): ResolvedReference {
  const file = lookup(reference.path);
  const written = formatReference(reference);
  if (file === undefined) {
    throw new CtxloomError({
      code: 'not-found',
      message: `reference ${written}: no such file`,
      file: reference.path,
      path: written,
    });
  }
  if (reference.type === 'lines') {
    const lineCount = countLines(file.lines);
    if (reference.startLine < 1 || reference.endLine < reference.startLine || reference.endLine > lineCount) {
      throw new CtxloomError({
        code: 'not-found',
        message: `reference ${written}: lines ${reference.startLine}-${reference.endLine} are outside the file (it has ${lineCount} lines)`,
        file: reference.path,
        line: Math.min(reference.startLine, lineCount + 1),
        path: written,
        details: { lineCount },
      });
    }
    return {
      reference,
      path: reference.path,
      startLine: reference.startLine,
      endLine: reference.endLine,
      text: file.lines.slice(reference.startLine - 1, reference.endLine).join('\n'),
    };
  }
  const resolved = resolveBlock(file.blocks ?? [], reference.block, {
    file: reference.path,
    ...(options.budget === undefined ? {} : { budget: options.budget }),
    ...(options.index === undefined ? {} : { index: options.index(file) }),
  });
  const { startLine, sectionEndLine } = resolved.block.source;
  const result: ResolvedReference = {
    reference,
    path: reference.path,
    startLine,
    endLine: sectionEndLine,
    text: file.lines.slice(startLine - 1, sectionEndLine).join('\n'),
    blockId: resolved.block.id,
  };
  if (resolved.warning !== undefined) result.warning = resolved.warning;
  return result;
}

/** Lines of a file, not counting the empty string after a final newline. */
function countLines(lines: readonly string[]): number {
  return lines.length > 0 && lines.at(-1) === '' ? lines.length - 1 : lines.length;
}
