import { parseArgs } from 'node:util';
import { foldCurationEvents } from '../../workspace/curation/curation-event.ts';
import type { CliIo } from '../io.ts';
import { openSessionDirEngine } from '../open-session-engine.ts';
import { usageError } from '../usage-error.ts';

/** Help text of `ctxloom curation`. */
export const CURATION_HELP = `Usage: ctxloom curation <session-dir> [list | exclude <message-id> | restore <message-id>] [--reason text]

Curate the history the model sees. The stored record stays whole; excluded and dismissed
messages are shown to the model as placeholders. Every change is appended to the session's curation log
(memory.json in the files store).

  list                    curated messages and the full event log (default)
  exclude <message-id>    hide a message from the model (by the user)
  restore <message-id>    undo an exclusion or a model's dismissal

Options:
  --reason <text>   shown in the placeholder, e.g. "与学习无关的闲聊"
  --store <spec>    where the session is kept: files (default), sqlite:<path>, postgres://…
  -h, --help        show this help
`;

/** `ctxloom curation <session-dir> [list|exclude|restore]`: user-side curation. */
export async function runCuration(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      reason: { type: 'string' },
      store: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout(CURATION_HELP);
    return 0;
  }
  const [dir, action = 'list', messageId, ...extra] = positionals;
  if (dir === undefined) {
    throw usageError('curation takes <session-dir> [list | exclude <message-id> | restore <message-id>]');
  }
  if (action !== 'list' && action !== 'exclude' && action !== 'restore')
    throw usageError(`unknown action "${action}"; use list, exclude or restore`);
  if (action === 'list' && messageId !== undefined) throw usageError('list takes no <message-id>');
  if (action !== 'list' && messageId === undefined) throw usageError(`${action} needs a <message-id>`);
  if (extra.length > 0) throw usageError(`${action} takes one <message-id>`);
  const { engine, sessionId, close } = await openSessionDirEngine(dir, io.cwd ?? process.cwd(), {
    ...(values.store === undefined ? {} : { store: values.store }),
  });
  try {
    if (action === 'list') {
      const { curation } = await engine.store.load(sessionId);
      const statuses = foldCurationEvents(curation);
      io.stdout(`curated messages: ${statuses.size}\n`);
      for (const [id, status] of statuses)
        io.stdout(
          `  ${id}  ${status.state} by ${status.by}${status.summary ? ` — ${status.summary}` : ''}\n`,
        );
      io.stdout(`events: ${curation.length}\n`);
      for (const event of curation)
        io.stdout(
          `  ${event.at}  ${event.type} ${event.targetMessageId} by ${event.by}${event.summary ? ` — ${event.summary}` : ''}\n`,
        );
      return 0;
    }
    const [event] = await engine.curate(sessionId, {
      action,
      targetMessageIds: [messageId as string],
      ...(values.reason === undefined ? {} : { summary: values.reason }),
    });
    io.stdout(`${action === 'exclude' ? 'excluded' : 'restored'} ${messageId} (event ${event?.id})\n`);
    return 0;
  } finally {
    await close();
  }
}
