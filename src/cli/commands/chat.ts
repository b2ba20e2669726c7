import { parseArgs } from 'node:util';
import type { CliIo } from '../io.ts';
import { openSessionDirEngine } from '../open-session-engine.ts';
import { usageError } from '../usage-error.ts';

/** Help text of `ctxloom chat`. */
export const CHAT_HELP = `Usage: ctxloom chat <session-dir> <message…> [options]

Run one turn of the session — the same engine as the notebook's chat: compile under the
budget, call the model (CTXLOOM_MODEL, offline by default) with the workspace tools, store the
question and the answer. "/compress", "/compress requirement" and "/compress artifacts" are
commands, answered without a model call. The answer goes to stdout; the call's token total
and tool calls to stderr. A message whose references cannot be resolved is refused before
anything is stored, with every bad reference named on stderr (exit 1). A failed model call
(HTTP 429/500, a bad reply, silence past CTXLOOM_MODEL_TIMEOUT_MS, default 120000) is one line
on stderr (exit 1), stored with the turn and never sent to the model again; CTXLOOM_DEBUG=1
prints the provider's full error too.

Options:
  --store <spec>  where the session is kept: files (default), sqlite:<path>, postgres://…
  --id <id>    id of the user message (a retry with the same id is refused, not repeated)
  --json       print one JSON object when the turn ends: { answer, userMessageId,
               storedMessageIds, calls: [{ id, step, totalTokens }], error? }
  -h, --help   show this help

Example:
  ctxloom chat examples/notebook/raft-consensus "What is a term?"
`;

/** `ctxloom chat <session-dir> <message…>`: one turn through the session engine. */
export async function runChat(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      id: { type: 'string' },
      store: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout(CHAT_HELP);
    return 0;
  }
  const [dir, ...words] = positionals;
  const text = words.join(' ').trim();
  if (dir === undefined || text === '') throw usageError('chat takes <session-dir> and a message');
  const { engine, sessionId, close } = await openSessionDirEngine(dir, io.cwd ?? process.cwd(), {
    ...(values.store === undefined ? {} : { store: values.store }),
    stderr: io.stderr,
  });
  try {
    const turn = await engine.runTurn({
      sessionId,
      text,
      ...(values.id === undefined ? {} : { messageId: values.id }),
    });
    if (turn.compiled !== undefined && !values.json) {
      const { report } = turn.compiled;
      io.stderr(`context: ${report.totalTokens} of ${report.inputBudget} tokens\n`);
    }
    let error: string | undefined;
    let answer = '';
    for await (const chunk of turn.stream) {
      if (chunk.type === 'text-delta') {
        answer += chunk.delta;
        if (!values.json) io.stdout(chunk.delta);
      } else if (chunk.type === 'tool-input-available' && !values.json)
        io.stderr(`[tool ${chunk.toolName}]\n`);
      else if (chunk.type === 'error') {
        error = chunk.errorText;
        io.stderr(`error: ${chunk.errorText}\n`);
      }
    }
    const stored = await turn.stored;
    if (values.json) {
      const calls = (await engine.listCalls(sessionId)).filter((call) => call.turnId === turn.userMessageId);
      const result = {
        answer,
        userMessageId: turn.userMessageId,
        storedMessageIds: stored.map((message) => message.id),
        calls: calls.map((call) => ({ id: call.id, step: call.step, totalTokens: call.report.totalTokens })),
        ...(error === undefined ? {} : { error }),
      };
      io.stdout(`${JSON.stringify(result, null, 2)}\n`);
    } else {
      io.stdout('\n');
    }
    return error === undefined ? 0 : 1;
  } finally {
    await close();
  }
}
