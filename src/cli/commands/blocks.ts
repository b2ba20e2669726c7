import { basename, dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Block } from '../../workspace/blocks/block.ts';
import { createSandbox } from '../../workspace/sandbox/create-sandbox.ts';
import { openWorkspace } from '../../workspace/workspace.ts';
import type { CliIo } from '../io.ts';
import { usageError } from '../usage-error.ts';

/** Help text of `ctxloom blocks`. */
export const BLOCKS_HELP = `Usage: ctxloom blocks <file> [options]

Print the block tree of a Markdown (by heading) or JSON (by key) file: ids, short ids from the
sidecar (<name>.blocks.json) and 1-based line ranges.

Options:
  --json          print the tree as JSON
  --write-ids     create or update the sidecar with persistent short ids
  -h, --help      show this help
`;

/** `ctxloom blocks <file>`: the block tree with ids and line ranges. */
export async function runBlocks(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      'write-ids': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout(BLOCKS_HELP);
    return 0;
  }
  const [file, ...extra] = positionals;
  if (file === undefined || extra.length > 0) throw usageError('blocks takes exactly one <file>');
  const absolute = resolve(io.cwd ?? process.cwd(), file);
  const workspace = openWorkspace({ root: dirname(absolute) });
  const sandbox = createSandbox({ root: dirname(absolute) });
  const parsed = await workspace.readParsed(sandbox, basename(absolute), {
    persistShortIds: values['write-ids'],
  });
  if (values.json) {
    io.stdout(`${JSON.stringify(parsed.blocks, null, 2)}\n`);
    return 0;
  }
  // The split leaves an empty last entry after a final newline: it starts no line.
  const lineCount = parsed.lines.length - (parsed.lines.at(-1) === '' ? 1 : 0);
  io.stdout(`${file} · ${lineCount} line${lineCount === 1 ? '' : 's'}\n`);
  const print = (blocks: readonly Block[], depth: number) => {
    for (const block of blocks) {
      const { startLine, endLine, sectionEndLine } = block.source;
      const range =
        sectionEndLine === endLine
          ? `L${startLine}-${endLine}`
          : `L${startLine}-${endLine} (section to L${sectionEndLine})`;
      const short = block.shortId === undefined ? '' : ` [${block.shortId}]`;
      io.stdout(
        `${'  '.repeat(depth)}${'#'.repeat(Math.min(block.level, 6))} ${block.id}${short}  ${range}\n`,
      );
      print(block.children, depth + 1);
    }
  };
  print(parsed.blocks, 0);
  if (parsed.blocks.length === 0) io.stdout('(no blocks)\n');
  return 0;
}
