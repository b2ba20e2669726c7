/**
 * The one way a page's code runs as a test. Each `ts` block of README.md and docs/*.md is a
 * file of `examples/<page>/`, quoted whole with its `../../src/<area>/index.ts` imports written
 * as the package's `ctxloom/<area>`; that folder's test checks the quote (`expectQuotedWhole`)
 * and runs the file, asserting what the page says it does. A block of another language says on
 * the line before it which test runs it (`<!-- run by: <file> -->`) or why nothing can
 * (`<!-- not run: <reason> -->`); `text` blocks are diagrams and sample output, not code.
 * `examples/doc-examples.test.ts` checks every block of every page against these rules.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

/** The repository's root, with a trailing slash. */
export const REPO = fileURLToPath(new URL('../', import.meta.url));

/** A file as its page shows it: imports by package name, surrounding blank lines trimmed. */
export function asDocumented(source: string): string {
  return source
    .replaceAll("'../../src/core/index.ts'", "'ctxloom'")
    .replace(/'\.\.\/\.\.\/src\/([a-z-]+)\/index\.ts'/gu, "'ctxloom/$1'")
    .trim();
}

/** One fenced code block of a Markdown page. */
export interface Fence {
  /** The info string's first word (`ts`, `sh`, `json`, `text`, …); '' when there is none. */
  language: string;
  /** The block's text, trimmed. */
  code: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The marker on the line before the fence: `run by` (with the files named) or `not run`. */
  marker?: { kind: 'run by' | 'not run'; text: string };
}

const MARKER = /^<!-- (run by|not run): (.+?) -->$/u;

/** The fenced blocks of a Markdown text, in order (fences start at the line's first column). */
export function fencesOf(markdown: string): Fence[] {
  const lines = markdown.split('\n');
  const fences: Fence[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^```(\S*)/u.exec(lines[index] as string);
    if (open === null) continue;
    const start = index;
    index++;
    while (index < lines.length && lines[index] !== '```') index++;
    if (index === lines.length) throw new Error(`unclosed code block at line ${start + 1}`);
    const marker = MARKER.exec(lines[start - 1] ?? '');
    fences.push({
      language: open[1] as string,
      code: lines
        .slice(start + 1, index)
        .join('\n')
        .trim(),
      line: start + 1,
      ...(marker === null
        ? {}
        : { marker: { kind: marker[1] as 'run by' | 'not run', text: marker[2] as string } }),
    });
  }
  return fences;
}

/** A page of the repository (`README.md`, `docs/state.md`), read as text. */
export function readPage(page: string): Promise<string> {
  return readFile(join(REPO, page), 'utf8');
}

/** The blocks of one language on a page, in order. */
export async function blocksOf(page: string, language: string): Promise<string[]> {
  return fencesOf(await readPage(page))
    .filter((fence) => fence.language === language)
    .map((fence) => fence.code);
}

/**
 * Asserts that the page's `ts` blocks are exactly these files of `examples/`, in this order,
 * each quoted whole as the page shows it (`asDocumented`).
 */
export async function expectQuotedWhole(page: string, files: readonly string[]): Promise<void> {
  const quoted = await Promise.all(
    files.map(async (file) => asDocumented(await readFile(join(REPO, file), 'utf8'))),
  );
  expect(await blocksOf(page, 'ts')).toEqual(quoted);
}

/** Every TypeScript file under `examples/`, relative to the repository's root. */
export async function exampleFiles(): Promise<string[]> {
  const entries = await readdir(join(REPO, 'examples'), { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(REPO, join(entry.parentPath, entry.name)))
    .sort();
}
