import type { ToolGroups } from './history.ts';
import type { Message } from './message.ts';
import { type CompileWarning, LISTED_WARNINGS } from './report.ts';
import { shorten } from './shorten.ts';

const NONE: readonly CompileWarning[] = [];

/**
 * The warnings of a call's history and steps whose tool calls and results do not pair
 * (decision 087): `tool-call-unanswered` for each call no later result answers,
 * `tool-result-orphaned` for each result no earlier call made — requests every provider
 * refuses. Read from the tool groups the compile collects anyway; `messageAt(index)` is the
 * message at a group index.
 */
export function toolPairingWarnings(
  tools: Pick<ToolGroups, 'unanswered' | 'orphans'>,
  messageAt: (index: number) => Message | undefined,
): readonly CompileWarning[] {
  if (tools.unanswered.size === 0 && tools.orphans.length === 0) return NONE;
  const warnings: CompileWarning[] = [];
  let listed = 0;
  for (const [toolCallId, index] of tools.unanswered) {
    if (++listed > LISTED_WARNINGS) break;
    const id = messageAt(index)?.id;
    warnings.push({
      code: 'tool-call-unanswered',
      message: `the tool call "${shorten(toolCallId)}"${id === undefined ? '' : ` of message "${shorten(id)}"`} has no result after it; providers refuse a request with an unanswered call`,
      ...(id === undefined ? {} : { messageId: id }),
    });
  }
  const moreCalls = tools.unanswered.size - LISTED_WARNINGS;
  if (moreCalls > 0)
    warnings.push({
      code: 'tool-call-unanswered',
      message: `${moreCalls} more tool calls have no result after them (the first ${LISTED_WARNINGS} are listed)`,
    });
  for (const { index, toolCallId } of tools.orphans.slice(0, LISTED_WARNINGS)) {
    const id = messageAt(index)?.id;
    warnings.push({
      code: 'tool-result-orphaned',
      message: `the tool result${id === undefined ? '' : ` of message "${shorten(id)}"`} answers call "${shorten(toolCallId)}", which no message before it makes; providers refuse a result without its call`,
      ...(id === undefined ? {} : { messageId: id }),
    });
  }
  const moreResults = tools.orphans.length - LISTED_WARNINGS;
  if (moreResults > 0)
    warnings.push({
      code: 'tool-result-orphaned',
      message: `${moreResults} more tool results answer no earlier call (the first ${LISTED_WARNINGS} are listed)`,
    });
  return warnings;
}
