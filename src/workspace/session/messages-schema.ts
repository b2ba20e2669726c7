import { z } from 'zod';

const part = z.union([
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
    output: z.looseObject({ type: z.enum(['text', 'json', 'error-text', 'error-json', 'execution-denied']) }),
  }),
  z.looseObject({ type: z.literal('file'), data: z.string(), mediaType: z.string() }),
]);

/** Schema of one stored message (the core `Message` shape; extra fields are kept). */
export const storedMessageSchema = z.looseObject({
  id: z.string().min(1),
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.union([z.string(), z.array(part)]),
  name: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

/** Schema of `messages.json`: an array of messages, oldest first. */
export const messagesFileSchema = z.array(storedMessageSchema);
