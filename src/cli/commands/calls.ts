import { parseArgs } from 'node:util';
import { type DiffBlock, diffReports, formatReport } from '../../core/index.ts';
import type { CliIo } from '../io.ts';
import { joinNegativeValues } from '../join-negative-values.ts';
import { openSessionDirEngine } from '../open-session-engine.ts';
import { plainDecimal, usageError } from '../usage-error.ts';

/** Help text of `ctxloom calls`. */
export const CALLS_HELP = `Usage: ctxloom calls <session-dir> [options]

List the session's logged model calls (the newest 200 are kept): when, which turn and step,
the model, and the tokens sent. Every call's full report is kept.

Options:
  --store <spec>  where the session is kept: files (default), sqlite:<path>, postgres://…
  --show <n>    print the full report of call n (1 = oldest listed; -1 = newest)
  --diff <n>    what changed from the call before n to call n: blocks added, removed (why),
                trimmed, summarised, and the tokens a prompt cache could serve
  --json        print JSON: the records, the one --show names, or the --diff
  --limit <n>   most calls listed (default 200)
  -h, --help    show this help
`;

/** `ctxloom calls <session-dir>`: the session's call log. */
export async function runCalls(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: joinNegativeValues(args, ['--show', '--diff']),
    allowPositionals: true,
    options: {
      show: { type: 'string' },
      diff: { type: 'string' },
      json: { type: 'boolean', default: false },
      limit: { type: 'string' },
      store: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout(CALLS_HELP);
    return 0;
  }
  const [dir, ...extra] = positionals;
  if (dir === undefined || extra.length > 0) throw usageError('calls takes exactly one <session-dir>');
  const limit = values.limit === undefined ? 200 : decimalInteger(values.limit, '--limit', 'positive');
  const { engine, sessionId, close } = await openSessionDirEngine(dir, io.cwd ?? process.cwd(), {
    ...(values.store === undefined ? {} : { store: values.store }),
  });
  try {
    const calls = await engine.listCalls(sessionId, { limit });
    if (values.json && values.show === undefined && values.diff === undefined) {
      io.stdout(`${JSON.stringify(calls, null, 2)}\n`);
      return 0;
    }
    if (values.diff !== undefined) {
      const index = decimalInteger(values.diff, '--diff', 'call');
      const at = index > 0 ? index - 1 : calls.length + index;
      const current = calls[at];
      const previous = calls[at - 1];
      if (current === undefined || previous === undefined || at < 1) {
        throw usageError(`--diff needs a call with one before it (${calls.length} listed)`, '--diff');
      }
      const diff = diffReports(previous.report, current.report);
      if (values.json) {
        io.stdout(`${JSON.stringify({ from: previous.id, to: current.id, ...diff }, null, 2)}\n`);
        return 0;
      }
      const line = (block: DiffBlock) =>
        `    ${block.layer.padEnd(20)} ${block.id} (${block.tokens} tokens)${block.reason === undefined ? '' : ` — ${block.reason.type}`}\n`;
      io.stdout(
        `call ${at} → ${at + 1}: ${diff.totals.previousTokens} → ${diff.totals.currentTokens} tokens\n`,
      );
      for (const [name, blocks] of [
        ['added', diff.added],
        ['removed', diff.removed],
        ['trimmed', diff.trimmed],
        ['summarised', diff.summarised],
      ] as const) {
        io.stdout(`  ${name}: ${blocks.length}\n`);
        for (const block of blocks) io.stdout(line(block));
      }
      io.stdout(
        `  cache: ${diff.cache.cachedTokens} tokens could be served, ${diff.cache.uncachedTokens} are new\n`,
      );
      return 0;
    }
    if (values.show !== undefined) {
      const index = decimalInteger(values.show, '--show', 'call');
      const call = calls.at(index > 0 ? index - 1 : index);
      if (call === undefined) throw usageError(`no call ${values.show} (${calls.length} listed)`, '--show');
      if (values.json) {
        io.stdout(`${JSON.stringify(call, null, 2)}\n`);
        return 0;
      }
      io.stdout(`call ${call.id} · turn ${call.turnId} step ${call.step} · ${call.model} · ${call.at}\n`);
      io.stdout(`${formatReport(call.report, { color: io.color })}\n`);
      return 0;
    }
    io.stdout(`session ${sessionId} · ${calls.length} call${calls.length === 1 ? '' : 's'}\n`);
    calls.forEach((call, index) => {
      io.stdout(
        `${String(index + 1).padStart(4)}  ${call.at}  turn ${call.turnId} step ${call.step}  ${call.model}  ${call.report.totalTokens}/${call.report.inputBudget} tokens\n`,
      );
    });
    return 0;
  } finally {
    await close();
  }
}

/**
 * An option's number as typed: a plain decimal integer (`-?[0-9]+`, a safe integer). `''`,
 * `0x10`, `1e1`, `1.0` and ` 1` are refused (usage error naming the option and the value):
 * `Number` reads them as 0, 16, 10 or 1. A `'call'` is a call number, 1 the oldest listed and
 * -1 the newest (`0` refused: it was call 1); a `'positive'` is 1 or more.
 */
function decimalInteger(value: string, option: string, kind: 'call' | 'positive'): number {
  const number = plainDecimal(value);
  const valid = Number.isSafeInteger(number) && (kind === 'call' ? number !== 0 : number > 0);
  if (!valid) {
    const takes =
      kind === 'call' ? 'a call number: 1 the oldest, -1 the newest' : 'a positive decimal integer';
    throw usageError(`${option} takes ${takes}, not ${JSON.stringify(value)}`, option);
  }
  return number;
}
