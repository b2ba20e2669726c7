import { z } from 'zod';
import { PARTS_OF_ROLE } from '../../core/message.ts';
import { isReservedMessageId, reservedMessageIdReason } from '../../core/reserved-message-id.ts';
import { shorten } from '../../core/shorten.ts';
import { firstMessageIssue, type MessageIssue } from './first-message-issue.ts';
import { toolResultOutputSchema } from './tool-result-output-schema.ts';

const part = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text'), text: z.string() }),
  z.looseObject({ type: z.literal('reasoning'), text: z.string() }),
  z.looseObject({
    type: z.literal('tool-call'),
    toolCallId: z.string(),
    toolName: z.string(),
    input: z.unknown(),
  }),
  z.looseObject({
    type: z.literal('tool-result'),
    toolCallId: z.string(),
    toolName: z.string(),
    output: toolResultOutputSchema,
  }),
  z.looseObject({
    type: z.literal('file'),
    data: z.string(),
    mediaType: z.string(),
    filename: z.string().optional(),
  }),
]);

/** `a`, `a and b`, `a, b and c`. */
function listOf(names: readonly string[]): string {
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** Schema of one stored message's shape (the core `Message` shape; extra fields are kept). */
export const storedMessageSchema = z.looseObject({
  id: z.string().min(1),
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.union([z.string(), z.array(part)], { error: 'expected a string or an array of parts' }),
  name: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

type StoredMessage = z.infer<typeof storedMessageSchema>;

/** Schema of a list of messages' shapes (see {@link checkMessages} for the rest). */
export const messageListSchema = z.array(storedMessageSchema);

/** What {@link checkMessages} found: the messages, or the first problem and where. */
export type MessagesCheck =
  | { success: true; data: StoredMessage[] }
  | { success: false; issue: MessageIssue; error?: z.ZodError };

/** What {@link checkMessages} checks beyond the shapes and roles. */
export interface CheckMessagesOptions {
  /** Each id used once (a repeated id names both positions). */
  uniqueIds: boolean;
  /**
   * No id in the namespace of the layer messages a compile composes (`layer:…`, see
   * `isReservedMessageId`): set where new messages enter (an append, a written record), not
   * where a stored record is read, so a session stored before the rule stays readable (a
   * compile sends its layers under free ids then).
   */
  refuseReservedIds: boolean;
}

/**
 * Checks a list of messages: each one's shape, parts that suit its role (user messages hold
 * text and file parts, assistant messages text, reasoning and tool-call parts, tool messages
 * only tool-result parts — as every compile's emitters require; a system message is not
 * limited), and the ids `options` asks about. The roles and ids are checked in a loop after
 * the shapes: as a zod refinement the same checks cost a 5,000-message file ~2 ms more than
 * the shapes alone.
 */
export function checkMessages(value: unknown, options: CheckMessagesOptions): MessagesCheck {
  const parsed = messageListSchema.safeParse(value);
  if (!parsed.success) return { success: false, issue: firstMessageIssue(parsed.error), error: parsed.error };
  const firstIndex = options.uniqueIds ? new Map<string, number>() : undefined;
  const messages = parsed.data;
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index] as StoredMessage;
    const issue = roleIssue(message, index);
    if (issue !== undefined) return { success: false, issue };
    if (options.refuseReservedIds && isReservedMessageId(message.id)) {
      return { success: false, issue: reservedIdIssue(message.id, index) };
    }
    if (firstIndex === undefined) continue;
    const first = firstIndex.get(message.id);
    if (first === undefined) {
      firstIndex.set(message.id, index);
      continue;
    }
    return {
      success: false,
      issue: {
        path: [index, 'id'],
        message: `message id ${JSON.stringify(shorten(message.id, 60))} is used by messages ${first} and ${index}; ids must be unique`,
      },
    };
  }
  return { success: true, data: parsed.data };
}

/** Message `index` has a reserved id (see {@link CheckMessagesOptions.refuseReservedIds}). */
function reservedIdIssue(id: string, index: number): MessageIssue {
  return {
    path: [index, 'id'],
    message: reservedMessageIdReason(id),
  };
}

/** The first part of message `index` that does not suit its role, if any. */
function roleIssue(message: StoredMessage, index: number): MessageIssue | undefined {
  if (message.role === 'system') return undefined;
  const { role, content } = message;
  if (typeof content === 'string') {
    if (role !== 'tool') return undefined;
    return { path: [index, 'content'], message: `a tool message cannot have text content; ${holds(role)}` };
  }
  const allowed = PARTS_OF_ROLE[role];
  for (let at = 0; at < content.length; at += 1) {
    const type = (content[at] as { type: (typeof allowed)[number] }).type;
    if (allowed.includes(type)) continue;
    const article = role === 'assistant' ? 'an' : 'a';
    return {
      path: [index, 'content', at, 'type'],
      message: `${article} ${role} message cannot carry a ${type} part; ${holds(role)}`,
    };
  }
  return undefined;
}

function holds(role: keyof typeof PARTS_OF_ROLE): string {
  return `${role} messages hold only ${listOf(PARTS_OF_ROLE[role])} parts`;
}
