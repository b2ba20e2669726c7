import { type JsonNode, parseJsonTree } from '../json/parse-json-tree.ts';
import type { Block } from './block.ts';
import { toIdSegment } from './block-path.ts';

/**
 * Splits a JSON file into blocks by key path (seed 003): each object member or array element
 * is a block whose id is its key path (`chatHistory/strategy`, `references/0`), whose `level`
 * is its depth and whose `content` is the JSON text of a scalar (a number as written; empty for objects and arrays,
 * whose members are the children). Line ranges cover the member's key through its value.
 * Throws `parse-error` with line and column for invalid JSON.
 */
export function parseJsonBlocks(content: string, file: string): Block[] {
  const root = parseJsonTree(content, file);
  return toBlocks(root, '', 1, file, content);
}

function toBlocks(node: JsonNode, prefix: string, level: number, file: string, text: string): Block[] {
  return (node.children ?? []).map(({ key, keyStart, node: child }) => {
    const segment = toIdSegment(String(key));
    const id = prefix === '' ? segment : `${prefix}/${segment}`;
    const scalar = child.kind !== 'object' && child.kind !== 'array';
    const endLine = child.end.line;
    return {
      id,
      heading: String(key),
      level,
      // A number as written: `JSON.stringify` would round a long one (or turn it into null).
      content:
        child.kind === 'number'
          ? text.slice(child.start.offset, child.end.offset)
          : scalar
            ? JSON.stringify(child.value)
            : '',
      children: toBlocks(child, id, level + 1, file, text),
      source: {
        file,
        startLine: keyStart.line,
        endLine: scalar ? endLine : child.start.line,
        sectionEndLine: endLine,
      },
    };
  });
}
