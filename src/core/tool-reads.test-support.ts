import type { Message } from './message.ts';

/** A `read_file` call of `${id}.md` and its result `text`: ids `${id}:call` and `${id}:result`. */
export function readFileMessages(id: string, text: string): Message[] {
  return [
    {
      id: `${id}:call`,
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: id, toolName: 'read_file', input: { path: `${id}.md` } }],
    },
    {
      id: `${id}:result`,
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: id, toolName: 'read_file', output: { type: 'text', value: text } },
      ],
    },
  ];
}
