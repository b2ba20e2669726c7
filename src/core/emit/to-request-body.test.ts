import { describe, expect, it } from 'vitest';
import type { Message } from '../message.ts';
import { toAnthropicRequest, toOpenAIRequest } from './to-request-body.ts';

const messages: Message[] = [
  { id: 's', role: 'system', content: 'You are a tutor.', metadata: { layer: 'system' } },
  { id: 'q', role: 'user', content: 'What is a term?', metadata: { layer: 'query' } },
];
const tools = [
  {
    name: 'read_file',
    description: 'Read a file',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
];

describe('toOpenAIRequest', () => {
  it('is the whole Chat Completions body: model, messages, function tools, max_tokens', () => {
    expect(toOpenAIRequest(messages, { model: 'gpt-4o', tools, maxOutputTokens: 512 })).toEqual({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'You are a tutor.' },
        { role: 'user', content: 'What is a term?' },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'read_file', description: 'Read a file', parameters: tools[0]?.inputSchema },
        },
      ],
      max_tokens: 512,
    });
  });

  it('leaves tools out when the call offers none', () => {
    expect(toOpenAIRequest(messages, { model: 'gpt-4o', maxOutputTokens: 1 })).not.toHaveProperty('tools');
  });
});

describe('toAnthropicRequest', () => {
  it('is the whole Messages body: model, max_tokens, system, messages, tools with input_schema', () => {
    const body = toAnthropicRequest(messages, { model: 'claude-sonnet-4-5', tools, maxOutputTokens: 512 });
    expect(body).toMatchObject({
      model: 'claude-sonnet-4-5',
      max_tokens: 512,
      system: [{ type: 'text', text: 'You are a tutor.' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'What is a term?' }] }],
      tools: [{ name: 'read_file', description: 'Read a file', input_schema: tools[0]?.inputSchema }],
    });
  });
});
