import { z } from 'zod';

const line = z.int().min(1).describe('1-based line number');

/** Input of `read_file` (≈ `cat -n` / `sed -n 's,ep'`). */
export const readFileInput = z.strictObject({
  path: z.string().describe('file path relative to the session folder, e.g. "guidance.md"'),
  startLine: line.optional().describe('first line to read (1-based, inclusive); default 1'),
  endLine: line.optional().describe('last line to read (inclusive); default the end of the file'),
});

/** Input of `write_file` (≈ `echo >` / `patch`). */
export const writeFileInput = z.strictObject({
  path: z.string().describe('file path relative to the session folder'),
  content: z.string().describe('new text; with a line range it replaces exactly those lines'),
  startLine: line.optional().describe('first line to replace; alone, content is inserted before this line'),
  endLine: line.optional().describe('last line to replace (inclusive); needs startLine'),
});

/** Input of `list_files` (≈ `ls -R`). */
export const listFilesInput = z.strictObject({
  dir: z.string().optional().describe('folder relative to the session folder; default the session folder'),
});

/** Input of `search` (≈ `grep -rn`). */
export const searchInput = z.strictObject({
  pattern: z
    .string()
    .min(1)
    .max(200)
    .describe(
      'text to find; when regex is true a regular expression (RE2: JavaScript syntax without lookaround or backreferences)',
    ),
  path: z
    .string()
    .optional()
    .describe(
      'file or folder to search; default every session file and the global files (the call log, calls/, only when named)',
    ),
  regex: z
    .boolean()
    .optional()
    .describe('treat pattern as a regular expression (default false: literal text)'),
  caseSensitive: z.boolean().optional().describe('default false'),
});

/** Input of `read_block`. */
export const readBlockInput = z.strictObject({
  file: z.string().describe('Markdown or JSON file, e.g. "profile.md"'),
  blockId: z
    .string()
    .optional()
    .describe('heading path such as "学习目标/已有基础" or a short id; omit to list the blocks of the file'),
});

/** Input of `dismiss_memory`. */
export const dismissMemoryInput = z.strictObject({
  targetMessageId: z
    .string()
    .min(1)
    .describe('id of the message (usually a tool result) to replace by a placeholder'),
  summary: z
    .string()
    .min(1)
    .max(500)
    .describe('one line saying what it contained and why it is no longer needed'),
});
