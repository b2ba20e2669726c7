import { parseArgs } from 'node:util';
import { formatReport } from '../../core/index.ts';
import type { CliIo } from '../io.ts';
import { openSessionEngine } from '../open-session-engine.ts';
import { usageError } from '../usage-error.ts';

/** Help text of `ctxloom calls`. */
export const CALLS_HELP = `Usage: ctxloom calls <session-dir> [options]

List the session's logged model calls (the newest 200 are kept): when, which turn and step,
the model, and the tokens sent. Every call's full report is kept.

Options:
  --show <n>    print the full report of call n (1 = oldest listed; -1 = newest)
  --json        print the records as JSON
  --limit <n>   most calls listed (default 200)
  -h, --help    show this help
`;

/** `ctxloom calls <session-dir>`: the session's call log. */
export async function runCalls(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      show: { type: 'string' },
      json: { type: 'boolean', default: false },
      limit: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout(CALLS_HELP);
    return 0;
  }
  const [dir, ...extra] = positionals;
  if (dir === undefined || extra.length > 0) throw usageError('calls takes exactly one <session-dir>');
  const limit = values.limit === undefined ? 200 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) throw usageError('--limit takes a positive integer', '--limit');
  const { engine, sessionId } = await openSessionEngine(dir, io.cwd ?? process.cwd());
  const calls = await engine.listCalls(sessionId, { limit });
  if (values.json) {
    io.stdout(`${JSON.stringify(calls, null, 2)}\n`);
    return 0;
  }
  if (values.show !== undefined) {
    const index = Number(values.show);
    const call = Number.isInteger(index) ? calls.at(index > 0 ? index - 1 : index) : undefined;
    if (call === undefined) throw usageError(`no call ${values.show} (${calls.length} listed)`, '--show');
    io.stdout(`call ${call.id} · turn ${call.turnId} step ${call.step} · ${call.model} · ${call.at}\n`);
    io.stdout(`${formatReport(call.report, { color: io.color })}\n`);
    return 0;
  }
  io.stdout(`session ${sessionId} · ${calls.length} calls\n`);
  calls.forEach((call, index) => {
    io.stdout(
      `${String(index + 1).padStart(4)}  ${call.at}  turn ${call.turnId} step ${call.step}  ${call.model}  ${call.report.totalTokens}/${call.report.inputBudget} tokens\n`,
    );
  });
  return 0;
}
