import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import {
  type ContextBlock,
  type ContextKey,
  CtxloomError,
  compileContext,
  createBlock,
  createExtractiveSummarizer,
  formatReport,
  type Message,
} from '../../core/index.ts';
import { partText } from '../../core/message.ts';
import { getTokenCounter } from '../../tokenizers/index.ts';
import type { CliIo } from '../io.ts';
import { usageError } from '../usage-error.ts';

const requestSchema = z.strictObject({
  $comment: z.string().optional(),
  model: z.string(),
  window: z.number().int().positive(),
  outputReserveRatio: z.number().min(0).lt(1).optional(),
  query: z.string(),
  contexts: z.record(z.string(), z.string()).optional(),
  knowledge: z.array(z.strictObject({ file: z.string(), priority: z.number().min(0).max(1) })).default([]),
});

/**
 * The example the package ships (`examples/demo` of the repository and of the installed package).
 */
export const DEMO_DIR = fileURLToPath(new URL('../../../examples/demo', import.meta.url));

/** Help text of `ctxloom demo`. */
export const DEMO_HELP = `Usage: ctxloom demo [dir] [options]

Compile the example in dir (default: the bundled examples/demo) — request.json, a system
prompt, a chat history and knowledge files — and print the messages that would be sent and
the per-layer report. Exits 2 when the example does not fit its window.

Options:
  --json      print { messages, report } as JSON instead
  -h, --help  show this help
`;

/**
 * `ctxloom demo [dir] [--json]`: compiles the example in `dir` (default {@link DEMO_DIR}) — a system
 * prompt, a chat history, knowledge files and a query — and prints the messages that would
 * be sent and the per-layer report.
 */
export async function runDemo(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    io.stdout(DEMO_HELP);
    return 0;
  }
  const [given, ...extra] = positionals;
  if (extra.length > 0) throw usageError('demo takes at most one [dir]');
  const dir = given === undefined ? DEMO_DIR : resolve(io.cwd ?? process.cwd(), given);
  const request = requestSchema.safeParse(await readJson(join(dir, 'request.json')));
  if (!request.success) {
    const issue = request.error.issues[0];
    throw new CtxloomError({
      code: 'invalid-config',
      message: issue?.message ?? 'invalid request',
      file: join(dir, 'request.json'),
      path: issue?.path.join('.') ?? '',
    });
  }
  const { model, window, query, contexts, knowledge, outputReserveRatio } = request.data;
  const counter = getTokenCounter(model);
  const systemPrompt = await readFile(join(dir, 'system-prompt.md'), 'utf8');
  const history = (await readJson(join(dir, 'history.json'))) as Message[];
  const blocks: ContextBlock[] = [];
  for (const entry of knowledge) {
    const content = (await readFile(join(dir, entry.file), 'utf8')).trimEnd();
    blocks.push(
      createBlock(
        {
          id: entry.file,
          layer: 'knowledge__context',
          source: 'knowledge',
          content,
          priority: entry.priority,
          provenance: { file: entry.file, startLine: 1, endLine: content.split('\n').length },
        },
        counter,
      ),
    );
  }

  const compiled = await compileContext(
    { systemPrompt, contexts: (contexts ?? {}) as Record<ContextKey, string>, blocks, history, query },
    {
      counter,
      window,
      ...(outputReserveRatio === undefined ? {} : { outputReserveRatio }),
      allocationRatios: { history: 0.55, knowledge: 0.3 },
      summarizer: createExtractiveSummarizer({ counter }),
    },
  );

  if (values.json) {
    io.stdout(`${JSON.stringify({ messages: compiled.messages, report: compiled.report }, null, 2)}\n`);
    return compiled.report.fits ? 0 : 2;
  }
  io.stdout(`ctxloom demo — ${dir}\nmodel ${model}, tokenizer ${counter.name}\n\n`);
  io.stdout('messages that would be sent:\n');
  compiled.messages.forEach((message, index) => {
    const text =
      typeof message.content === 'string' ? message.content : message.content.map(partText).join(' ');
    const flat = text.replace(/\s+/gu, ' ');
    const layer = String(message.metadata?.layer ?? '');
    io.stdout(
      `${String(index + 1).padStart(3)}  ${message.role.padEnd(9)} ${layer.padEnd(21)} ${flat.length > 72 ? `${flat.slice(0, 71)}…` : flat}\n`,
    );
  });
  io.stdout(`\n${formatReport(compiled.report, { color: io.color })}\n`);
  return compiled.report.fits ? 0 : 2;
}

async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CtxloomError({ code: 'not-found', message: `cannot read ${file}`, file, cause: error });
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CtxloomError({
      code: 'parse-error',
      message: `invalid JSON: ${error instanceof Error ? error.message : String(error)}`,
      file,
      cause: error,
    });
  }
}
