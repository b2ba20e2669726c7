import { CtxloomError } from '../../core/index.ts';
import type { Block } from './block.ts';
import { parseJsonBlocks } from './parse-json-blocks.ts';
import { parseMarkdownBlocks } from './parse-markdown-blocks.ts';

/** True when `file` is split into blocks by {@link parseBlocks} (`.md`, `.markdown`, `.json`). */
export function hasBlockParser(file: string): boolean {
  return /\.(?:md|markdown|json)$/iu.test(file);
}

/**
 * Parses a file into blocks by its extension: Markdown by heading, JSON by key path. Other
 * formats throw `unsupported` naming the file.
 */
export function parseBlocks(content: string, file: string): Block[] {
  if (/\.(?:md|markdown)$/iu.test(file)) return parseMarkdownBlocks(content, file);
  if (/\.json$/iu.test(file)) return parseJsonBlocks(content, file);
  throw new CtxloomError({
    code: 'unsupported',
    message: 'only Markdown (.md) and JSON (.json) files have blocks',
    file,
  });
}

/** The text of a block's whole section (heading and children included), from the file's lines. */
export function blockSectionText(lines: readonly string[], block: Block): string {
  return lines.slice(block.source.startLine - 1, block.source.sectionEndLine).join('\n');
}
