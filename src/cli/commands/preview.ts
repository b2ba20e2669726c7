import { parseArgs } from 'node:util';
import { formatReport, messageText } from '../../core/index.ts';
import type { CliIo } from '../io.ts';
import { openSessionDirEngine } from '../open-session-engine.ts';
import { usageError } from '../usage-error.ts';

/** Help text of `ctxloom preview`. */
export const PREVIEW_HELP = `Usage: ctxloom preview <session-dir> [options]

Show what the model will see: per-layer token bars, kept / trimmed / dropped blocks with the
reason, compaction actions and warnings (in colour on a terminal).

Options:
  --store <spec>  where the session is kept: files (default), sqlite:<path>, postgres://…
  --query <text>  preview with this user message instead of the manifest's "query"
  --verbose       list every dropped block and the first line of each message
  --json          print { report, references, warnings } as JSON
  --no-color      plain text even on a terminal
  -h, --help      show this help
`;

/** `ctxloom preview <session-dir>`: the core compile report, rendered by `formatReport`. */
export async function runPreview(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      query: { type: 'string' },
      verbose: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      'no-color': { type: 'boolean', default: false },
      store: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout(PREVIEW_HELP);
    return 0;
  }
  const [dir, ...extra] = positionals;
  if (dir === undefined || extra.length > 0) throw usageError('preview takes exactly one <session-dir>');
  const { engine, sessionId, close } = await openSessionDirEngine(dir, io.cwd ?? process.cwd(), {
    ...(values.store === undefined ? {} : { store: values.store }),
  });
  try {
    const result = await engine.compile(sessionId, values.query === undefined ? {} : { query: values.query });
    if (values.json) {
      const { report, references, warnings } = result;
      io.stdout(`${JSON.stringify({ report, references, warnings }, null, 2)}\n`);
      return 0;
    }
    const color = io.color && !values['no-color'];
    io.stdout(`session ${sessionId} · the next call sends ${result.messages.length} messages\n`);
    io.stdout(`${formatReport(result.report, { color, verbose: values.verbose })}\n`);
    if (result.references.length > 0) {
      io.stdout('\nreferences\n');
      for (const reference of result.references) {
        const block = reference.blockId === undefined ? '' : ` #${reference.blockId}`;
        io.stdout(`  ${reference.path}:${reference.startLine}-${reference.endLine}${block}\n`);
      }
    }
    for (const warning of result.warnings) io.stdout(`warning: ${warning}\n`);
    if (values.verbose) {
      io.stdout('\nmessages\n');
      for (const message of result.messages) {
        const text = messageText(message).replace(/\s+/gu, ' ').slice(0, 80);
        io.stdout(
          `  ${String(message.metadata?.layer ?? '').padEnd(20)} ${message.role.padEnd(9)} ${text}\n`,
        );
      }
    }
    return 0;
  } finally {
    await close();
  }
}
