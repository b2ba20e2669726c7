import { RE2JS } from 're2js';
import type { z } from 'zod';
import { CtxloomError } from '../../core/index.ts';
import { capOutput } from './cap-output.ts';
import { callLogOutside, splitLines } from './file-tools.ts';
import type { ToolContext } from './tool-context.ts';
import type { searchInput } from './tool-schemas.ts';

const MAX_LINE_CHARS = 4000;
const SNIPPET_CHARS = 160;
/** Largest compiled program accepted, in RE2 instructions (`[^x]{1000}` is 1002). */
const MAX_PROGRAM_SIZE = 2000;
/** Finding where a match starts tracks submatches (RE2's NFA), about 8× the cost of a yes/no test. */
const POSITION_WORK_FACTOR = 8;

/**
 * Default work limit of one `search` call, in engine units: every character handed to the
 * matcher costs its compiled program size (RE2's bound is O(characters × program size)). 32 M
 * units is about 8 M characters for a literal word and a few hundred milliseconds for the
 * worst pattern measured (`(\w+\s?)+$`).
 */
export const DEFAULT_MAX_SEARCH_WORK = 32_000_000;

/** A compiled `search` pattern: RE2 semantics, linear in the text matched. */
export interface LineMatcher {
  /** RE2 program size, the per-character cost of matching. */
  programSize: number;
  /** True when `line` contains a match (RE2's DFA; no submatch tracking). */
  test(line: string): boolean;
  /** UTF-16 offset where the leftmost match starts, or -1. */
  indexOf(line: string): number;
}

/**
 * Builds the matcher on RE2 (`re2js`), which runs in time linear in the input, so no pattern
 * can backtrack exponentially. Literal text is quoted; a `regex` pattern is read as JavaScript
 * syntax (translated to RE2's); lookaround and backreferences, which need backtracking, are
 * rejected with `invalid-argument` like any invalid pattern, and programs over 2000
 * instructions with `too-large`. Matching is by code point, so CJK and astral characters match whole.
 */
export function createMatcher(
  input: Pick<z.infer<typeof searchInput>, 'pattern' | 'regex' | 'caseSensitive'>,
): LineMatcher {
  const source = input.regex ? RE2JS.translateRegExp(input.pattern) : RE2JS.quote(input.pattern);
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(source, input.caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE);
  } catch (cause) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `invalid regular expression (RE2 syntax: no lookaround or backreferences): ${cause instanceof Error ? cause.message : String(cause)}`,
      path: 'pattern',
      cause,
    });
  }
  const programSize = compiled.programSize();
  if (programSize > MAX_PROGRAM_SIZE)
    throw new CtxloomError({
      code: 'too-large',
      message: `regular expression compiles to ${programSize} instructions, more than ${MAX_PROGRAM_SIZE}; use smaller repeat counts`,
      path: 'pattern',
    });
  const engine = compiled.re2();
  return {
    programSize,
    test: (line) => compiled.test(line),
    indexOf: (line) => {
      const found: number[] | null = engine.findIndex(line);
      return found === null ? -1 : (found[0] ?? -1);
    },
  };
}

/**
 * `search` (≈ `grep -rn`): every line matching `pattern` in text files under `path` (not in
 * the call log unless `path` is inside it, see `callLogOutside`), as
 * `file:line: snippet`, at most `maxSearchResults` hits, then a truncation marker. Binary,
 * oversized and non-UTF-8 files are skipped and counted. Work is bounded three ways: lines
 * over 4000 characters are matched on their first 4000 only, the engine is linear (RE2), and
 * one call stops after `maxSearchWork` units (characters × program size), saying where it
 * stopped.
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
    const skipInside = callLogOutside(target);
    const listed = await context.sandbox.list(target, {
      recursive: true,
      maxEntries: 5000,
      ...(skipInside && { skipInside }),
    });
    for (const entry of listed) {
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
  let work = 0;
  let stoppedAt: { file: string; line: number; filesDone: number } | undefined;
  scan: for (const [fileIndex, file] of files.entries()) {
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
    for (const [index, line] of splitLines(text).entries()) {
      const tested = line.length > MAX_LINE_CHARS ? line.slice(0, MAX_LINE_CHARS) : line;
      const cost = Math.max(1, tested.length) * matcher.programSize;
      if (work + cost > context.maxSearchWork) {
        stoppedAt = { file, line: index + 1, filesDone: fileIndex };
        break scan;
      }
      work += cost;
      if (!matcher.test(tested)) continue;
      total++;
      if (hits.length >= context.maxSearchResults) continue;
      let at = 0;
      if (Array.from(line).length > SNIPPET_CHARS) {
        // Only long lines need the match position, the one step that tracks submatches.
        work += cost * POSITION_WORK_FACTOR;
        at = Math.max(0, matcher.indexOf(tested));
      }
      hits.push(`${file}:${index + 1}: ${snippet(line, at)}`);
    }
  }
  const lines = hits.length === 0 ? [`no matches for ${JSON.stringify(input.pattern)}`] : hits;
  if (total > hits.length)
    lines.push(`[truncated: ${total} matching lines, showed ${hits.length}; narrow the path or pattern]`);
  if (stoppedAt !== undefined)
    lines.push(
      `[stopped at ${stoppedAt.file}:${stoppedAt.line} (${stoppedAt.filesDone} of ${files.length} files searched): work limit of ${context.maxSearchWork} units (characters × pattern size) reached; narrow the path or simplify the pattern]`,
    );
  if (skipped > 0) lines.push(`(${skipped} binary, oversized or non-UTF-8 files skipped)`);
  return capOutput(lines.join('\n'), context.maxOutputChars, 'narrow the path or pattern');
}

/** At most 160 characters of `line` around the match at UTF-16 offset `at`, with ellipses. */
export function snippet(line: string, at: number): string {
  const chars = Array.from(line);
  if (chars.length <= SNIPPET_CHARS) return line.trim();
  const position = Array.from(line.slice(0, at)).length;
  const start = Math.max(0, position - SNIPPET_CHARS / 4);
  const piece = chars.slice(start, start + SNIPPET_CHARS).join('');
  return `${start > 0 ? '…' : ''}${piece}${start + SNIPPET_CHARS < chars.length ? '…' : ''}`;
}
