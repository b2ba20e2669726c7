import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
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
import { parseJsonText } from '../../workspace/json/parse-json-text.ts';
import { issueLocation, parseJsonTree } from '../../workspace/json/parse-json-tree.ts';
import { createSandbox } from '../../workspace/sandbox/create-sandbox.ts';
import { checkMessages } from '../../workspace/session/messages-schema.ts';
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

Compile the example in dir (default: the bundled examples/demo) — request.json,
system-prompt.md, history.json (messages, as a session's messages.json holds them) and the
knowledge files request.json lists, which must be inside dir — and print the messages that
would be sent and the per-layer report. Exits 2 when the example does not fit its window.

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
  await assertDemoFolder(dir, given ?? 'examples/demo');
  // Every file is read inside the folder (a knowledge entry cannot name ../../etc/passwd), and
  // its errors are typed, naming the file relative to the folder.
  const folder = createSandbox({ root: dir });
  const request = requestSchema.safeParse(parseJsonText(await folder.readText(REQUEST_FILE), REQUEST_FILE));
  if (!request.success) {
    const issue = request.error.issues[0];
    throw new CtxloomError({
      code: 'invalid-config',
      message: issue?.message ?? 'invalid request',
      file: REQUEST_FILE,
      path: issue?.path.join('.') ?? '',
    });
  }
  const { model, window, query, contexts, knowledge, outputReserveRatio } = request.data;
  const counter = getTokenCounter(model);
  const systemPrompt = await folder.readText('system-prompt.md');
  // Ids are not required unique: the demo's history is compiled, never stored.
  const history = parseHistory(await folder.readText(HISTORY_FILE));
  const blocks: ContextBlock[] = [];
  for (const entry of knowledge) {
    const content = (await folder.readText(entry.file)).trimEnd();
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

const REQUEST_FILE = 'request.json';
const HISTORY_FILE = 'history.json';

/** The demo folder must exist and be a folder; named as the user typed it (`shown`). */
async function assertDemoFolder(dir: string, shown: string): Promise<void> {
  const info = await stat(dir).catch(() => undefined);
  if (info === undefined) {
    throw new CtxloomError({ code: 'not-found', message: 'demo folder does not exist', file: shown });
  }
  if (!info.isDirectory()) {
    throw new CtxloomError({ code: 'invalid-argument', message: 'the demo folder is a file', file: shown });
  }
}

/** `history.json`: a list of messages as a session's `messages.json` holds them, checked the same way. */
function parseHistory(text: string): Message[] {
  const value = parseJsonText(text, HISTORY_FILE);
  // Reserved ids are the compile's to handle (it sends its layers under free ids): never stored.
  const result = checkMessages(value, { uniqueIds: false, refuseReservedIds: false });
  if (result.success) return result.data as Message[];
  throw new CtxloomError({
    code: 'invalid-config',
    message: `invalid message: ${result.issue.message}`,
    file: HISTORY_FILE,
    ...issueLocation(parseJsonTree(text, HISTORY_FILE), result.issue.path),
    ...(result.error === undefined ? {} : { cause: result.error }),
  });
}
