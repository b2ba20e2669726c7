import type { ModelMessage, SystemModelMessage } from 'ai';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { toLangChain } from '../../langchain/index.ts';
import { compose } from '../compose.ts';
import { type Message, toolOutputText } from '../message.ts';
import { toAiSdk } from './ai-sdk.ts';
import { toAnthropic } from './anthropic.ts';
import { toOpenAI } from './openai.ts';

const history: Message[] = [
  { id: 'u1', role: 'user', content: 'read notes.md' },
  {
    id: 'a1',
    role: 'assistant',
    content: [
      { type: 'text', text: 'Reading it.' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: { path: 'notes.md' } },
    ],
  },
  {
    id: 't1',
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'c1',
        toolName: 'read_file',
        output: { type: 'error-text', value: 'not found' },
      },
    ],
  },
];
const messages = compose({
  systemPrompt: 'You are a tutor.',
  contexts: { framework__context: 'Answer briefly.', knowledge__context: 'Raft has terms.' },
  history,
  query: { id: 'u2', role: 'user', content: 'Why did it fail?' },
});

describe('toAiSdk', () => {
  it('emits AI SDK 7 instructions and model messages the SDK types accept', () => {
    const emitted = toAiSdk(messages);
    expectTypeOf(emitted.instructions).toExtend<SystemModelMessage[]>();
    expectTypeOf(emitted.messages).toExtend<ModelMessage[]>();
    expect(emitted.instructions.map((message) => message.content)).toEqual([
      'You are a tutor.',
      'Answer briefly.',
      'Raft has terms.',
    ]);
    expect(emitted.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'user']);
  });

  it('puts Anthropic cacheControl on the last stable layer only', () => {
    const emitted = toAiSdk(messages);
    const marked = emitted.instructions.filter((message) => message.providerOptions !== undefined);
    expect(marked).toHaveLength(1);
    expect(marked[0]?.content).toBe('Answer briefly.');
    expect(marked[0]?.providerOptions).toEqual({ anthropic: { cacheControl: { type: 'ephemeral' } } });
  });

  it('marks history breakpoints with providerOptions.anthropic.cacheControl', () => {
    const emitted = toAiSdk(messages);
    const marked = emitted.messages.flatMap((message, index) =>
      message.providerOptions === undefined ? [] : [index],
    );
    // The last history message before the query (the tool result) and the query itself.
    expect(marked).toEqual([2, 3]);
    expect(
      toAiSdk(messages, { cacheHistory: false }).messages.some((m) => m.providerOptions !== undefined),
    ).toBe(false);
  });

  it('turns a context layer placed after the history into user text', () => {
    const late = compose({
      systemPrompt: 's',
      contexts: { knowledge__context: 'k' },
      history,
      query: 'q',
      policy: { order: 'cache-friendly' },
    });
    const emitted = toAiSdk(late);
    expect(emitted.messages.at(-2)).toEqual({
      role: 'user',
      content: '<context layer="knowledge__context">\nk\n</context>',
    });
  });

  it('sends a content tool output as the text the report counts, an image as its [type]', () => {
    const output = {
      type: 'content' as const,
      value: [
        { type: 'text' as const, text: 'the chart:' },
        { type: 'image-data' as const, data: 'iVBORw0KGgo=', mediaType: 'image/png' },
      ],
    };
    const tool: Message = {
      id: 'r1',
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 't1', toolName: 'plot', output }],
    };
    const emitted = toAiSdk([tool], { cacheHistory: false });
    expect(emitted.messages).toEqual([
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 't1',
            toolName: 'plot',
            output: { type: 'text', value: toolOutputText(output) },
          },
        ],
      },
    ]);
    expect(toolOutputText(output)).toBe('the chart:\n[image-data]');
  });
});

describe('toOpenAI', () => {
  it('emits tool_calls and one tool message per result', () => {
    const { messages: out } = toOpenAI(messages);
    expect(out.map((message) => message.role)).toEqual([
      'system',
      'system',
      'system',
      'user',
      'assistant',
      'tool',
      'user',
    ]);
    expect(out[4]).toEqual({
      role: 'assistant',
      content: 'Reading it.',
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"notes.md"}' } },
      ],
    });
    expect(out[5]).toEqual({ role: 'tool', tool_call_id: 'c1', content: 'not found' });
  });
});

describe('toAnthropic', () => {
  it('emits system blocks with cache_control after the last stable layer and alternating turns', () => {
    const request = toAnthropic(messages);
    expect(request.system.map((block) => block.cache_control)).toEqual([
      undefined,
      { type: 'ephemeral' },
      undefined,
    ]);
    expect(request.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(request.messages[2]?.content[0]).toEqual({
      type: 'tool_result',
      tool_use_id: 'c1',
      content: 'not found',
      is_error: true,
      cache_control: { type: 'ephemeral' },
    });
    expect(request.messages[2]?.content[1]).toEqual({
      type: 'text',
      text: 'Why did it fail?',
      cache_control: { type: 'ephemeral' },
    });
  });

  it('keeps the breakpoint after the stable layers when layers are merged', () => {
    const merged = compose({
      systemPrompt: 'You are a tutor.',
      contexts: { framework__context: 'Answer briefly.', knowledge__context: 'Raft has terms.' },
      history,
      query: 'q',
      policy: { merge: true },
    });
    const request = toAnthropic(merged);
    expect(request.system.map((block) => block.cache_control)).toEqual([{ type: 'ephemeral' }, undefined]);
  });

  it('marks the end of the history for conversation caching by default', () => {
    const request = toAnthropic(messages);
    const toolResult = request.messages[2]?.content[0];
    expect(toolResult?.cache_control).toEqual({ type: 'ephemeral' });
  });
});

describe('toLangChain', () => {
  it('emits LangChain messages with ids, tool calls and error status', () => {
    const out = toLangChain(messages);
    expect(out.map((message) => message.getType())).toEqual([
      'system',
      'system',
      'system',
      'human',
      'ai',
      'tool',
      'human',
    ]);
    const ai = out[4] as unknown as { tool_calls: { id: string; name: string; args: unknown }[] };
    expect(ai.tool_calls[0]).toMatchObject({ id: 'c1', name: 'read_file', args: { path: 'notes.md' } });
    expect((out[5] as unknown as { status: string }).status).toBe('error');
    expect(out[3]?.id).toBe('u1');
  });
});
