import { parseArgs } from 'node:util';
import { foldMemoryEvents } from '../../workspace/memory/memory-event.ts';
import { readMemoryLog } from '../../workspace/session/session-store.ts';
import type { CliIo } from '../io.ts';
import { openSessionEngine } from '../open-session-engine.ts';
import { openSessionDir } from '../session-dir.ts';
import { usageError } from '../usage-error.ts';

/** Help text of `ctxloom memory`. */
export const MEMORY_HELP = `Usage: ctxloom memory <session-dir> [list | exclude <message-id> | restore <message-id>] [--reason text]

Memory curation. messages.json stays the full record; excluded and dismissed messages are
shown to the model as placeholders. Every change is appended to memory.json (the audit log).

  list                    curated messages and the full event log (default)
  exclude <message-id>    hide a message from the model (by the user)
  restore <message-id>    undo an exclusion or a model's dismissal

Options:
  --reason <text>   shown in the placeholder, e.g. "与学习无关的闲聊"
  -h, --help        show this help
`;

/** `ctxloom memory <session-dir> [list|exclude|restore]`: user-side memory curation. */
export async function runMemory(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { reason: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    io.stdout(MEMORY_HELP);
    return 0;
  }
  const [dir, action = 'list', messageId, ...extra] = positionals;
  if (dir === undefined || extra.length > 0)
    throw usageError('memory takes <session-dir> [action] [message-id]');
  const { workspace, sessionId } = await openSessionDir(dir, io.cwd ?? process.cwd());
  const sandbox = workspace.session(sessionId);
  if (action === 'list') {
    const log = await readMemoryLog(sandbox);
    const statuses = foldMemoryEvents(log.events);
    io.stdout(`curated messages: ${statuses.size}\n`);
    for (const [id, status] of statuses)
      io.stdout(`  ${id}  ${status.state} by ${status.by}${status.summary ? ` — ${status.summary}` : ''}\n`);
    io.stdout(`events: ${log.events.length}\n`);
    for (const event of log.events)
      io.stdout(
        `  ${event.at}  ${event.type} ${event.targetMessageId} by ${event.by}${event.summary ? ` — ${event.summary}` : ''}\n`,
      );
    return 0;
  }
  if (action !== 'exclude' && action !== 'restore')
    throw usageError(`unknown action "${action}"; use list, exclude or restore`);
  if (messageId === undefined) throw usageError(`${action} needs a <message-id>`);
  const { engine } = await openSessionEngine(dir, io.cwd ?? process.cwd());
  const [event] = await engine.curate(sessionId, {
    action,
    targetMessageIds: [messageId],
    ...(values.reason === undefined ? {} : { summary: values.reason }),
  });
  io.stdout(`${action === 'exclude' ? 'excluded' : 'restored'} ${messageId} (event ${event?.id})\n`);
  return 0;
}
