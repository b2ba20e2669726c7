import type { ToolGroups } from './history.ts';
import type { Message } from './message.ts';
import type { CompileWarning } from './report.ts';

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
  for (const [toolCallId, index] of tools.unanswered) {
    const id = messageAt(index)?.id;
    warnings.push({
      code: 'tool-call-unanswered',
      message: `the tool call "${toolCallId}"${id === undefined ? '' : ` of message "${id}"`} has no result after it; providers refuse a request with an unanswered call`,
      ...(id === undefined ? {} : { messageId: id }),
    });
  }
  for (const { index, toolCallId } of tools.orphans) {
    const id = messageAt(index)?.id;
    warnings.push({
      code: 'tool-result-orphaned',
      message: `the tool result${id === undefined ? '' : ` of message "${id}"`} answers call "${toolCallId}", which no message before it makes; providers refuse a result without its call`,
      ...(id === undefined ? {} : { messageId: id }),
    });
  }
  return warnings;
}
