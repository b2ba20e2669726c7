import type { z } from 'zod';
import { CtxloomError } from '../../core/index.ts';
import { validateRelativePath } from '../sandbox/validate-path.ts';
import { foldName, isCallLog, reservedNameOf } from '../session/reserved-files.ts';
import { capOutput } from './cap-output.ts';
import type { ToolContext } from './tool-context.ts';
import type { listFilesInput, readFileInput, writeFileInput } from './tool-schemas.ts';

/** Splits text into lines; a final newline does not start an extra line. */
export function splitLines(text: string): string[] {
  const lines = text.split(/\r\n|\r|\n/u);
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  return lines;
}

/**
 * `read_file`: the file's lines `startLine..endLine`, numbered like `cat -n`, under a header
 * naming the range and the file's length. Throws `invalid-argument` for an `endLine` before
 * `startLine`, `not-found` for a range past the end.
 */
export async function readFileTool(
  context: ToolContext,
  input: z.infer<typeof readFileInput>,
): Promise<string> {
  const startLine = input.startLine ?? 1;
  if (input.endLine !== undefined && input.endLine < startLine) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `endLine ${input.endLine} is before startLine ${startLine}`,
      file: input.path,
      path: 'endLine',
    });
  }
  const lines = splitLines(await context.sandbox.readText(input.path));
  const endLine = Math.min(input.endLine ?? lines.length, lines.length);
  if (lines.length > 0 && startLine > lines.length) {
    const range =
      input.endLine === undefined
        ? `line ${startLine} is past the end of`
        : `lines ${startLine}-${input.endLine} are outside`;
    throw new CtxloomError({
      code: 'not-found',
      message: `${range} ${input.path} (it has ${lines.length} line${lines.length === 1 ? '' : 's'})`,
      file: input.path,
      line: startLine,
    });
  }
  const width = String(endLine).length;
  const body = lines
    .slice(startLine - 1, endLine)
    .map((text, index) => `${String(startLine + index).padStart(width)}\t${text}`)
    .join('\n');
  const header = `${input.path} (lines ${lines.length === 0 ? 0 : startLine}-${endLine} of ${lines.length})`;
  return capOutput(
    `${header}\n${body}`,
    context.maxOutputChars,
    'read a smaller line range with startLine/endLine',
  );
}

/**
 * `write_file`: without a range, replaces (or creates) the whole file; with `startLine` and
 * `endLine`, replaces exactly those lines; with `startLine` alone, inserts before that line
 * (`lines + 1` appends). Refuses the read-only record files and global files.
 */
export async function writeFileTool(
  context: ToolContext,
  input: z.infer<typeof writeFileInput>,
): Promise<string> {
  validateRelativePath(input.path);
  // Where the write lands after symlinks (`sub/link-up/messages.json` is `messages.json`), and
  // where the entry itself sits: either may be a name ctxloom keeps (a lock file, calls/, …).
  const name = await context.sandbox.canonical(input.path);
  const entry = await context.sandbox.locate(input.path);
  const readOnly = new Set(context.readOnlyFiles.map(foldName));
  for (const landing of [name, entry]) {
    const reserved = reservedNameOf(landing) ?? (readOnly.has(foldName(landing)) ? landing : undefined);
    if (reserved !== undefined) {
      throw new CtxloomError({
        code: 'path-escape',
        message: `${landing} is managed by ctxloom (${reserved}) and read-only for tools`,
        file: input.path,
        details: { protected: reserved },
      });
    }
  }
  const owner = await context.sandbox.owner(name);
  if (owner !== context.sandbox) {
    throw new CtxloomError({
      code: 'path-escape',
      message: `${name} is a global workspace file; tools cannot change it`,
      file: input.path,
    });
  }
  if (input.endLine !== undefined && input.startLine === undefined) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: 'endLine needs startLine',
      file: input.path,
      path: 'endLine',
    });
  }
  const newLines = splitLines(input.content);
  if (input.startLine === undefined) {
    await context.sandbox.writeText(input.path, input.content);
    return `wrote ${input.path}: ${lineCount(newLines.length)}`;
  }
  let changed = '';
  await context.sandbox.update(input.path, (current) => {
    const lines = current === undefined ? [] : splitLines(current);
    const start = input.startLine as number;
    const end = input.endLine ?? start - 1;
    if (start > lines.length + 1 || end > lines.length || end < start - 1) {
      throw new CtxloomError({
        code: 'invalid-argument',
        message: `line range ${start}-${input.endLine ?? ''} does not fit ${input.path} (it has ${lineCount(lines.length)})`,
        file: input.path,
        line: start,
      });
    }
    lines.splice(start - 1, end - start + 1, ...newLines);
    changed =
      end < start
        ? `inserted ${lineCount(newLines.length)} before line ${start}`
        : `replaced lines ${start}-${end} with ${lineCount(newLines.length)}`;
    return `${lines.join('\n')}\n`;
  });
  return `wrote ${input.path}: ${changed}`;
}

/** How `list_files` shows the call log it does not descend into. */
const CALL_LOG_NOTE = "(ctxloom's log of the model calls: not listed or searched unless named)";

/**
 * What a folder walk of `list_files` and `search` leaves out: the call log (`calls/`, one JSON
 * record per model call, each a report of what that call sent), unless the walk starts inside
 * it. In a long session its records would fill `search`'s hits and `list_files`' 500 entries
 * before any file the agent works on.
 */
export function callLogOutside(dir: string): ((path: string) => boolean) | undefined {
  return isCallLog(dir) ? undefined : isCallLog;
}

/**
 * `list_files`: the session's files (recursive, with sizes; the call log's folder without its
 * records, see {@link callLogOutside}), then the readable global files.
 */
export async function listFilesTool(
  context: ToolContext,
  input: z.infer<typeof listFilesInput>,
): Promise<string> {
  const dir = input.dir ?? '';
  const skipInside = callLogOutside(dir);
  const entries = await context.sandbox.list(dir, {
    recursive: true,
    maxEntries: 501,
    ...(skipInside && { skipInside }),
  });
  const lines = entries.slice(0, 500).map((entry) => {
    if (entry.kind === 'file') return `${entry.path}\t${entry.size} bytes`;
    return skipInside?.(entry.path) ? `${entry.path}/\t${CALL_LOG_NOTE}` : `${entry.path}/`;
  });
  if (entries.length > 500) lines.push('[truncated: more than 500 entries; list a sub-folder]');
  if (input.dir === undefined || input.dir === '' || input.dir === '.') {
    for (const file of context.workspace.globalFiles) {
      const local = entries.some((entry) => entry.path === file);
      if (!local && (await context.sandbox.exists(file))) lines.push(`${file}\t(global, read-only)`);
    }
  }
  return capOutput(lines.join('\n') || '(empty)', context.maxOutputChars, 'list a sub-folder');
}

/** `1 line`, `3 lines`. */
function lineCount(count: number): string {
  return `${count} line${count === 1 ? '' : 's'}`;
}
