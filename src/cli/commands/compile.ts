import { parseArgs } from 'node:util';
import { DEFAULT_MODEL } from '../../workspace/compile/compile-workspace-context.ts';
import { type EmitFormat, selectEmitFormat } from '../../workspace/compile/emit-workspace-context.ts';
import type { CliIo } from '../io.ts';
import { openSessionDirEngine } from '../open-session-engine.ts';
import { usageError } from '../usage-error.ts';

const FORMATS: readonly EmitFormat[] = ['ai-sdk', 'openai', 'anthropic', 'json'];

/** Help text of `ctxloom compile`. */
export const COMPILE_HELP = `Usage: ctxloom compile <session-dir> [options]

Compile the session's context-config.json into the exact input of one model call and print it
as JSON on stdout. --format openai and anthropic print the whole request body the chat would
send: model, messages, the tools it offers and the output limit (max_tokens, the report's
output reserve).

Options:
  --store <spec>  where the session is kept: files (default), sqlite:<path>, postgres://…
  --format <f>   ai-sdk | openai | anthropic | json (default json: systemPrompt, messages, report)
  --model <id>   the model id in a request body (default: CTXLOOM_MODEL's, else the
                 manifest's budget.model)
  --query <text> use this user message instead of the manifest's "query"
  -h, --help     show this help

Example:
  ctxloom compile examples/notebook/raft-consensus --format anthropic
`;

/** `ctxloom compile <session-dir> [--format ai-sdk|openai|anthropic|json] [--query text]`. */
export async function runCompile(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      format: { type: 'string', default: 'json' },
      query: { type: 'string' },
      model: { type: 'string' },
      store: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout(COMPILE_HELP);
    return 0;
  }
  const [dir, ...extra] = positionals;
  if (dir === undefined || extra.length > 0) throw usageError('compile takes exactly one <session-dir>');
  const format = values.format as EmitFormat;
  if (!FORMATS.includes(format))
    throw usageError(`unknown --format "${values.format}"; use ${FORMATS.join(', ')}`, '--format');
  const { engine, sessionId, close, model, modelId } = await openSessionDirEngine(
    dir,
    io.cwd ?? process.cwd(),
    {
      ...(values.store === undefined ? {} : { store: values.store }),
    },
  );
  try {
    const result = await engine.compile(sessionId, values.query === undefined ? {} : { query: values.query });
    for (const warning of result.warnings) io.stderr(`warning: ${warning}\n`);
    const target = {
      model: values.model ?? (model.offline ? (result.config.budget.model ?? DEFAULT_MODEL) : modelId),
      tools: result.tools,
    };
    io.stdout(`${JSON.stringify(selectEmitFormat(result, format, target), null, 2)}\n`);
    return 0;
  } finally {
    await close();
  }
}
