import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message, Part, ToolResultPart } from '../core/index.ts';
import { threadDecoder } from './from-langchain.ts';
import { CTXLOOM_KWARG, fromLangChain, toLangChain } from './index.ts';

const TWO_RESULTS: Message = {
  id: 't1',
  role: 'tool',
  content: [
    {
      type: 'tool-result',
      toolCallId: 'c1',
      toolName: 'read_file',
      output: { type: 'json', value: { rows: 3 } },
    },
    {
      type: 'tool-result',
      toolCallId: 'c2',
      toolName: 'grep',
      output: { type: 'error-text', value: 'no match' },
    },
  ],
};

describe('toLangChain and fromLangChain', () => {
  it('give a LangChain reader one ToolMessage per tool result, paired with its call, and read the message back exactly', () => {
    const encoded = toLangChain([TWO_RESULTS]);
    expect(encoded).toHaveLength(2);
    const [first, second] = encoded as ToolMessage[];
    expect([first?.id, first?.tool_call_id, first?.name, first?.status, first?.content]).toEqual([
      't1',
      'c1',
      'read_file',
      'success',
      '{"rows":3}',
    ]);
    expect([second?.id, second?.tool_call_id, second?.name, second?.status, second?.content]).toEqual([
      't1:c2',
      'c2',
      'grep',
      'error',
      'no match',
    ]);
    expect(fromLangChain(encoded)).toEqual([TWO_RESULTS]);
  });

  it('say in LangChain fields what they can — a picture as image_url, a name as name — and add nothing to a plain reply', () => {
    const [user, reply] = toLangChain([
      {
        id: 'u1',
        role: 'user',
        name: 'ada',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'file', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
        ],
      },
      { id: 'a1', role: 'assistant', content: 'A chart.' },
    ]);
    expect(user?.name).toBe('ada');
    expect(user?.content).toEqual([
      { type: 'text', text: 'What is this?' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
    ]);
    expect(reply?.additional_kwargs).toEqual({});
  });

  it('read a tool message the earlier checkpoint encoder stored as one ToolMessage holding every result', () => {
    // As `toCheckpointMessage` (decisions 020, 053) wrote it: the first result's fields, all parts in the kwarg.
    const stored = new ToolMessage({
      id: 't1',
      content: '{"rows":3}',
      tool_call_id: 'c1',
      name: 'read_file',
      status: 'success',
      additional_kwargs: { [CTXLOOM_KWARG]: { content: TWO_RESULTS.content } },
    });
    expect(fromLangChain([stored])).toEqual([TWO_RESULTS]);
  });

  it('read a later result on its own when the message it belonged to was removed', () => {
    const [, second] = toLangChain([TWO_RESULTS]);
    expect(fromLangChain([second as ToolMessage])).toEqual([
      {
        id: 't1:c2',
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c2',
            toolName: 'grep',
            output: { type: 'error-text', value: 'no match' },
          },
        ],
      },
    ]);
  });

  it('map messages a LangChain model wrote as the compile pipeline sees them', () => {
    const messages = fromLangChain([
      new HumanMessage({ id: 'u1', content: 'Count the rows.' }),
      new AIMessage({
        id: 'a1',
        content: '',
        tool_calls: [{ id: 'c1', name: 'count', args: { table: 'orders' }, type: 'tool_call' }],
      }),
      new ToolMessage({ id: 'r1', content: '42', tool_call_id: 'c1', name: 'count' }),
    ]);
    expect(messages).toEqual([
      { id: 'u1', role: 'user', content: 'Count the rows.' },
      {
        id: 'a1',
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'count', input: { table: 'orders' } }],
      },
      {
        id: 'r1',
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'c1', toolName: 'count', output: { type: 'text', value: '42' } },
        ],
      },
    ]);
  });

  it('round-trip any conversation exactly (property)', () => {
    fc.assert(
      fc.property(fc.array(message(), { maxLength: 8 }), (drafts) => {
        const messages = drafts.map((draft, index) => ({ ...draft, id: `m${index}` }) as Message);
        expect(fromLangChain(toLangChain(messages))).toEqual(messages);
      }),
      { numRuns: 300 },
    );
  });

  it('a thread decoder reads every prefix of a growing thread as a whole decode does (property)', () => {
    fc.assert(
      fc.property(
        fc.array(message(), { minLength: 1, maxLength: 10 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 6 }),
        (drafts, cuts) => {
          const messages = drafts.map((draft, index) => ({ ...draft, id: `m${index}` }) as Message);
          const thread = toLangChain(messages);
          const decode = threadDecoder();
          for (const cut of [...cuts, thread.length]) {
            const prefix = thread.slice(0, 1 + (cut % thread.length));
            expect(decode(prefix)).toEqual(fromLangChain(prefix));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

const key = fc.stringMatching(/^[a-z]{1,6}$/u);
const json = fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.parse(JSON.stringify(value)) as unknown);
const text = fc.record({ type: fc.constant('text' as const), text: fc.string() });
const file = fc.record(
  {
    type: fc.constant('file' as const),
    data: fc.base64String({ maxLength: 12 }),
    mediaType: fc.constantFrom('image/png', 'application/pdf'),
    filename: key,
  },
  { requiredKeys: ['type', 'data', 'mediaType'] },
);
const toolCall = fc.record({
  type: fc.constant('tool-call' as const),
  toolCallId: key,
  toolName: key,
  input: json,
});
const toolResult: fc.Arbitrary<ToolResultPart> = fc.record({
  type: fc.constant('tool-result' as const),
  toolCallId: key,
  toolName: key,
  output: fc.oneof(
    fc.record({ type: fc.constantFrom('text' as const, 'error-text' as const), value: fc.string() }),
    fc.record({ type: fc.constantFrom('json' as const, 'error-json' as const), value: json }),
    fc.record(
      { type: fc.constant('execution-denied' as const), reason: fc.string() },
      { requiredKeys: ['type'] },
    ),
  ),
}) as fc.Arbitrary<ToolResultPart>;

/** A message without its id: every role with the parts it can hold, a name and metadata or not. */
function message(): fc.Arbitrary<Omit<Message, 'id'>> {
  const content = (parts: fc.Arbitrary<Part>) =>
    fc.oneof(fc.string(), fc.array(parts, { maxLength: 4 })) as fc.Arbitrary<Message['content']>;
  const body = fc.oneof(
    fc.record({ role: fc.constant('user' as const), content: content(fc.oneof(text, file)) }),
    fc.record({ role: fc.constant('system' as const), content: fc.string() }),
    fc.record({
      role: fc.constant('assistant' as const),
      content: content(
        fc.oneof(
          text,
          toolCall,
          file,
          fc.record({ type: fc.constant('reasoning' as const), text: fc.string() }),
        ),
      ),
    }),
    fc.record({ role: fc.constant('tool' as const), content: fc.array(toolResult, { maxLength: 3 }) }),
  );
  return fc
    .tuple(body, fc.option(key, { nil: undefined }), fc.option(fc.dictionary(key, json), { nil: undefined }))
    .map(([entry, name, metadata]) => ({
      ...entry,
      ...(name === undefined ? {} : { name }),
      ...(metadata === undefined ? {} : { metadata }),
    }));
}
