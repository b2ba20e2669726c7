import { z } from 'zod';
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

/**
 * The part types each role may carry, as every compile's emitters require (`toAiSdk` refuses
 * the others). A system message is not limited: a compile renders only its text.
 */
const PARTS_OF_ROLE: Readonly<Record<'user' | 'assistant' | 'tool', readonly string[]>> = {
  user: ['text', 'file'],
  assistant: ['text', 'reasoning', 'tool-call'],
  tool: ['tool-result'],
};

/** `a`, `a and b`, `a, b and c`. */
function listOf(names: readonly string[]): string {
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/**
 * Schema of one stored message (the core `Message` shape; extra fields are kept). Besides the
 * shape, a part must suit its role: user messages hold text and file parts, assistant
 * messages text, reasoning and tool-call parts, and tool messages only tool-result parts (never
 * a string).
 */
export const storedMessageSchema = z
  .looseObject({
    id: z.string().min(1),
    role: z.enum(['system', 'user', 'assistant', 'tool']),
    content: z.union([z.string(), z.array(part)], { error: 'expected a string or an array of parts' }),
    name: z.string().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .superRefine((message, context) => {
    if (message.role === 'system') return;
    const allowed = PARTS_OF_ROLE[message.role];
    const article = message.role === 'assistant' ? 'an' : 'a';
    const holds = `${message.role} messages hold only ${listOf(allowed)} parts`;
    if (typeof message.content === 'string') {
      if (message.role === 'tool') {
        context.addIssue({
          code: 'custom',
          message: `a tool message cannot have text content; ${holds}`,
          path: ['content'],
        });
      }
      return;
    }
    for (const [index, entry] of message.content.entries()) {
      if (allowed.includes(entry.type)) continue;
      context.addIssue({
        code: 'custom',
        message: `${article} ${message.role} message cannot carry a ${entry.type} part; ${holds}`,
        path: ['content', index, 'type'],
      });
    }
  });

/**
 * Schema of a batch of messages to append: each one valid; repeated ids are left to the
 * append, which refuses them (and ids already stored) with `conflict`.
 */
export const messageBatchSchema = z.array(storedMessageSchema);

/** Longest id quoted whole in an error; a longer one is shortened. */
const QUOTED_ID_MAX_CHARS = 60;

function quoteId(id: string): string {
  if (id.length <= QUOTED_ID_MAX_CHARS) return JSON.stringify(id);
  return `${JSON.stringify(id.slice(0, QUOTED_ID_MAX_CHARS - 20))}… (${id.length} characters)`;
}

/**
 * Schema of `messages.json`: an array of messages, oldest first, each id used once (a
 * repeated id names both positions).
 */
export const messagesFileSchema = messageBatchSchema.superRefine((messages, context) => {
  const firstIndex = new Map<string, number>();
  for (const [index, message] of messages.entries()) {
    const first = firstIndex.get(message.id);
    if (first === undefined) {
      firstIndex.set(message.id, index);
      continue;
    }
    context.addIssue({
      code: 'custom',
      message: `message id ${quoteId(message.id)} is used by messages ${first} and ${index}; ids must be unique`,
      path: [index, 'id'],
    });
  }
});
