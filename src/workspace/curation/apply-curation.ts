import type { Message, Part, ToolCallPart } from '../../core/index.ts';
import type { CurationStatus } from './curation-event.ts';

/** Language of placeholders. */
export type PlaceholderLocale = 'zh' | 'en';

/**
 * Replaces dismissed and excluded messages by placeholders that keep the conversation's
 * causal thread, e.g. `[已读取 ground-truth.md:30-50 — 模型判断：与当前问题无关]` or
 * `[用户消息 #22 — 用户已排除]` (messages by position, not by id). Tool
 * results keep their call id (so every tool call still has its result); only the output text
 * changes. Messages without a status are returned as they are. Pure.
 */
export function applyCuration(
  messages: readonly Message[],
  statuses: ReadonlyMap<string, CurationStatus>,
  locale: PlaceholderLocale = 'zh',
): Message[] {
  const calls = new Map<string, ToolCallPart>();
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    for (const part of message.content) if (part.type === 'tool-call') calls.set(part.toolCallId, part);
  }
  return messages.map((message, index) => {
    const status = statuses.get(message.id);
    if (status === undefined) return message;
    const metadata = {
      ...message.metadata,
      memory: { state: status.state, by: status.by, eventId: status.eventId },
    };
    if (typeof message.content === 'string' || !message.content.some((part) => part.type === 'tool-result')) {
      return {
        ...message,
        content: placeholder(describeMessage(message, index, locale), status, locale),
        metadata,
      };
    }
    const content = message.content.map((part): Part => {
      if (part.type !== 'tool-result') return part;
      const subject = describeToolCall(calls.get(part.toolCallId), part.toolName, locale);
      return { ...part, output: { type: 'text', value: placeholder(subject, status, locale) } };
    });
    return { ...message, content, metadata };
  });
}

function placeholder(subject: string, status: CurationStatus, locale: PlaceholderLocale): string {
  const summary = status.summary?.trim();
  if (locale === 'en') {
    const judge =
      status.state === 'excluded'
        ? 'excluded by the user'
        : `${status.by === 'model' ? 'model' : 'user'} judged`;
    return summary ? `[${subject} — ${judge}: ${summary}]` : `[${subject} — ${judge}]`;
  }
  const judge = status.state === 'excluded' ? '用户已排除' : `${status.by === 'model' ? '模型' : '用户'}判断`;
  return summary ? `[${subject} — ${judge}：${summary}]` : `[${subject} — ${judge}]`;
}

/**
 * Names a message by its 1-based position in the record (`#12`): short (a UUID id costs ~30
 * tokens per placeholder), stable (the record only grows) and readable.
 */
function describeMessage(message: Message, index: number, locale: PlaceholderLocale): string {
  const who = {
    user: ['用户', 'user'],
    assistant: ['助手', 'assistant'],
    system: ['系统', 'system'],
    tool: ['工具', 'tool'],
  }[message.role];
  return locale === 'en' ? `${who[1]} message #${index + 1}` : `${who[0]}消息 #${index + 1}`;
}

function describeToolCall(
  call: ToolCallPart | undefined,
  toolName: string,
  locale: PlaceholderLocale,
): string {
  const input = (call?.input ?? {}) as Record<string, unknown>;
  const path =
    typeof input.path === 'string' ? input.path : typeof input.file === 'string' ? input.file : undefined;
  const zh = locale === 'zh';
  if ((toolName === 'read_file' || toolName === 'read_block') && path !== undefined) {
    let target = path;
    if (typeof input.blockId === 'string') target += `#${input.blockId}`;
    else if (typeof input.startLine === 'number')
      target += `:${input.startLine}-${typeof input.endLine === 'number' ? input.endLine : ''}`;
    return zh ? `已读取 ${target}` : `read ${target}`;
  }
  if (toolName === 'search' && typeof input.pattern === 'string') {
    return zh ? `已搜索 "${input.pattern}"` : `searched "${input.pattern}"`;
  }
  return zh ? `工具 ${toolName} 的结果` : `result of tool ${toolName}`;
}
