import type { z } from 'zod';
import { CtxloomError } from '../../core/index.ts';
import { capOutput } from './cap-output.ts';
import { splitLines } from './file-tools.ts';
import type { ToolContext } from './tool-context.ts';
import type { searchInput } from './tool-schemas.ts';

const MAX_LINE_CHARS = 4000;
const SNIPPET_CHARS = 160;

/** Builds the matcher: literal text escaped, `u` flag always (so CJK and astral characters match whole). */
export function createMatcher(
  input: Pick<z.infer<typeof searchInput>, 'pattern' | 'regex' | 'caseSensitive'>,
): RegExp {
  const source = input.regex ? input.pattern : input.pattern.replace(/[.*+?^${}()|[\]\\/-]/gu, '\\$&');
  try {
    return new RegExp(source, input.caseSensitive ? 'u' : 'iu');
  } catch (cause) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `invalid regular expression: ${String(cause)}`,
      path: 'pattern',
      cause,
    });
  }
}

/**
 * `search` (≈ `grep -rn`): every line matching `pattern` in text files under `path`, as
 * `file:line: snippet`, at most `maxSearchResults` hits, then a truncation marker. Binary,
 * oversized and non-UTF-8 files are skipped and counted. Lines over 4000 characters are
 * matched on their first 4000 only, bounding the cost of one regex test.
 */
export async function searchTool(context: ToolContext, input: z.infer<typeof searchInput>): Promise<string> {
  const matcher = createMatcher(input);
  const files: string[] = [];
  const target = input.path ?? '';
  const info = await context.sandbox.stat(target);
  if (info === undefined)
    throw new CtxloomError({ code: 'not-found', message: 'no such file or folder', file: target });
  if (info.kind === 'file') files.push(target);
  else {
    for (const entry of await context.sandbox.list(target, { recursive: true, maxEntries: 5000 })) {
      if (entry.kind === 'file') files.push(entry.path);
    }
    if (target === '' || target === '.') {
      for (const global of ['system-prompt.md', 'profile.md']) {
        if (!files.includes(global) && (await context.sandbox.exists(global))) files.push(global);
      }
    }
  }
  const hits: string[] = [];
  let total = 0;
  let skipped = 0;
  for (const file of files) {
    let text: string;
    try {
      text = await context.sandbox.readText(file);
    } catch (error) {
      if (CtxloomError.is(error)) {
        skipped++;
        continue;
      }
      throw error;
    }
    splitLines(text).forEach((line, index) => {
      const match = matcher.exec(line.length > MAX_LINE_CHARS ? line.slice(0, MAX_LINE_CHARS) : line);
      if (match === null) return;
      total++;
      if (hits.length < context.maxSearchResults)
        hits.push(`${file}:${index + 1}: ${snippet(line, match.index)}`);
    });
  }
  const lines = hits.length === 0 ? [`no matches for ${JSON.stringify(input.pattern)}`] : hits;
  if (total > hits.length)
    lines.push(`[truncated: ${total} matching lines, showed ${hits.length}; narrow the path or pattern]`);
  if (skipped > 0) lines.push(`(${skipped} binary, oversized or non-UTF-8 files skipped)`);
  return capOutput(lines.join('\n'), context.maxOutputChars, 'narrow the path or pattern');
}

function snippet(line: string, at: number): string {
  const chars = Array.from(line);
  if (chars.length <= SNIPPET_CHARS) return line.trim();
  const position = Array.from(line.slice(0, at)).length;
  const start = Math.max(0, position - SNIPPET_CHARS / 4);
  const piece = chars.slice(start, start + SNIPPET_CHARS).join('');
  return `${start > 0 ? '…' : ''}${piece}${start + SNIPPET_CHARS < chars.length ? '…' : ''}`;
}
