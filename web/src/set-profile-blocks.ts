import { applyEdits, findNodeAtLocation, modify, parse, parseTree } from 'jsonc-parser';

/** The `profileBlocks` ids of a `context-config.json` text (empty when missing or malformed). */
export function profileBlocksOf(text: string): string[] {
  const value = (parse(text) as { profileBlocks?: unknown } | undefined)?.profileBlocks;
  return Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string') : [];
}

/**
 * `text` with only `profileBlocks` replaced: the rest of the user's file — key order,
 * indentation, spacing, other arrays on one line — stays byte for byte. An array written on
 * one line stays on one line; otherwise jsonc-parser's `modify` + `applyEdits` (what VS Code
 * uses for settings.json) writes it in the file's own indentation.
 */
export function setProfileBlocks(text: string, ids: readonly string[]): string {
  const node = findNodeAtLocation(parseTree(text) ?? { type: 'null', offset: 0, length: 0 }, [
    'profileBlocks',
  ]);
  if (node !== undefined && !text.slice(node.offset, node.offset + node.length).includes('\n')) {
    const inline = `[${ids.map((id) => JSON.stringify(id)).join(', ')}]`;
    return `${text.slice(0, node.offset)}${inline}${text.slice(node.offset + node.length)}`;
  }
  const indent = /\n([ \t]+)"/u.exec(text)?.[1] ?? '  ';
  const tabs = indent.includes('\t');
  const edits = modify(text, ['profileBlocks'], [...ids], {
    formattingOptions: { insertSpaces: !tabs, tabSize: tabs ? 1 : indent.length, eol: '\n' },
  });
  return applyEdits(text, edits);
}
