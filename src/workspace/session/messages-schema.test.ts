import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { toolModelMessageSchema } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message, ToolResultOutput } from '../../core/index.ts';
import { toolOutputText } from '../../core/message.ts';
import { compileWorkspaceContext } from '../compile/compile-workspace-context.ts';
import { createSandbox } from '../sandbox/create-sandbox.ts';
import { openWorkspace, type Workspace } from '../workspace.ts';
import { appendMessages, parseMessages, readMessages } from './session-store.ts';

const question = { id: 'u1', role: 'user', content: 'find raft' };
const call = {
  id: 'a1',
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'search', input: { q: 'raft' } }],
};
const resultPart = (output: unknown) => ({
  type: 'tool-result',
  toolCallId: 'c1',
  toolName: 'search',
  output,
});
const result = (output: unknown) => ({ id: 't1', role: 'tool', content: [resultPart(output)] });

/** `messages.json` text, two spaces deep, as ctxloom writes it. */
const fileOf = (messages: unknown[]): string => `${JSON.stringify(messages, null, 2)}\n`;

/** The 1-based line of the first line of `text` holding `needle` after line `after`. */
function lineOf(text: string, needle: string, after = 0): number {
  const lines = text.split('\n');
  const index = lines.findIndex((line, at) => at >= after && line.includes(needle));
  if (index < 0) throw new Error(`no line holds ${needle}`);
  return index + 1;
}

/** What `parseMessages` threw for `text`. */
function refusal(text: string): Record<string, unknown> {
  try {
    parseMessages(text);
  } catch (error) {
    return error as Record<string, unknown>;
  }
  throw new Error('parseMessages accepted the file');
}

/** True when the installed AI SDK takes this output in a tool message. */
const sdkAccepts = (output: unknown): boolean =>
  toolModelMessageSchema.safeParse({ role: 'tool', content: [resultPart(output)] }).success;

const acceptedOutputs: [string, unknown][] = [
  ['text', { type: 'text', value: 'found 3 papers' }],
  ['text with provider options', { type: 'text', value: 'x', providerOptions: { openai: { a: 1 } } }],
  ['error-text', { type: 'error-text', value: 'search is down' }],
  ['json object', { type: 'json', value: { hits: [1, 2.5, 'three', true, null, { deep: [] }] } }],
  ['json null', { type: 'json', value: null }],
  ['json string', { type: 'json', value: 'plain' }],
  ['error-json', { type: 'error-json', value: { status: 503 } }],
  ['execution-denied', { type: 'execution-denied' }],
  ['execution-denied with a reason', { type: 'execution-denied', reason: 'the user said no' }],
  [
    'content with every part kind',
    {
      type: 'content',
      value: [
        { type: 'text', text: 'two results' },
        { type: 'file', data: { type: 'data', data: 'aGk=' }, mediaType: 'text/plain', filename: 'a.txt' },
        { type: 'file', data: { type: 'reference', reference: { openai: 'file-1' } }, mediaType: 'image' },
        { type: 'file', data: { type: 'text', text: 'inline' }, mediaType: 'text/markdown' },
        { type: 'file-data', data: 'aGk=', mediaType: 'text/plain', filename: 'b.txt' },
        { type: 'file-url', url: 'https://example.com/c.pdf', mediaType: 'application/pdf' },
        { type: 'file-url', url: 'https://example.com/d' },
        { type: 'file-id', fileId: 'file-2' },
        { type: 'file-id', fileId: { openai: 'file-3', anthropic: 'file-4' } },
        { type: 'file-reference', providerReference: { openai: 'file-5' } },
        { type: 'image-data', data: 'aGk=', mediaType: 'image/png' },
        { type: 'image-url', url: 'https://example.com/e.png' },
        { type: 'image-file-id', fileId: 'file-6' },
        { type: 'image-file-reference', providerReference: { anthropic: 'file-7' } },
        { type: 'custom', providerOptions: { anthropic: { kind: 'x' } } },
      ],
    },
  ],
  ['content with no parts', { type: 'content', value: [] }],
];

const refusedOutputs: [string, unknown, string, string][] = [
  ['text without its value', { type: 'text' }, 'output.value', 'expected string, received undefined'],
  ['error-text without its value', { type: 'error-text' }, 'output.value', 'expected string'],
  [
    'text with a number value',
    { type: 'text', value: 5 },
    'output.value',
    'expected string, received number',
  ],
  ['json without its value', { type: 'json' }, 'output.value', 'expected a JSON value'],
  ['error-json without its value', { type: 'error-json' }, 'output.value', 'expected a JSON value'],
  [
    'a denial with a number reason',
    { type: 'execution-denied', reason: 5 },
    'output.reason',
    'expected string',
  ],
  ['content with a string value', { type: 'content', value: 'x' }, 'output.value', 'expected array'],
  [
    'content with a text part lacking text',
    { type: 'content', value: [{ type: 'text' }] },
    'output.value.0.text',
    'expected string',
  ],
  [
    'content with a file by URL string (the SDK wants a URL object)',
    {
      type: 'content',
      value: [{ type: 'file', data: { type: 'url', url: 'https://x' }, mediaType: 'image/png' }],
    },
    'output.value.0.data.type',
    'Invalid discriminator value',
  ],
  [
    'content with an unknown part',
    { type: 'content', value: [{ type: 'video' }] },
    'output.value.0.type',
    'Invalid discriminator value',
  ],
  [
    'an unknown output type',
    { type: 'markdown', value: '# x' },
    'output.type',
    'Invalid discriminator value',
  ],
  ['an output without a type', { value: 'x' }, 'output.type', 'Invalid discriminator value'],
  ['a string output', 'found', 'output', 'expected object'],
];

describe('messages.json tool results', () => {
  it.each(acceptedOutputs)('accepts a %s output and parses it back unchanged', (_, output) => {
    const messages = [question, call, result(output)];
    expect(parseMessages(fileOf(messages))).toEqual(messages);
    expect(sdkAccepts(output)).toBe(true);
  });

  it.each(refusedOutputs)('refuses %s, naming the field', (_, output, field, problem) => {
    const text = fileOf([question, call, result(output)]);
    const error = refusal(text);
    expect(error).toMatchObject({ name: 'CtxloomError', code: 'invalid-config', file: 'messages.json' });
    expect(error.path).toBe(`2.content.0.${field}`);
    expect(String(error.message)).toContain(problem);
    // Inside the output: at the offending field, or at the object that lacks it.
    expect(error.line).toBeGreaterThanOrEqual(lineOf(text, '"output"'));
    expect(error.line).toBeLessThan(text.split('\n').length - 2);
    expect(sdkAccepts(output)).toBe(false);
  });

  it('points at the line and column of a wrong value', () => {
    const text = fileOf([question, call, result({ type: 'text', value: 5 })]);
    const line = lineOf(text, '"value": 5');
    const column = (text.split('\n')[line - 1] ?? '').indexOf('5') + 1;
    expect(refusal(text)).toMatchObject({ path: '2.content.0.output.value', line, column });
  });

  it('refuses a bad output in an append, storing nothing of the batch', async () => {
    const root = await mkdtemp(join(tmpdir(), 'ctxloom-messages-schema-'));
    try {
      const box = createSandbox({ root });
      await appendMessages(box, [question as Message]);
      await expect(
        appendMessages(box, [call, result({ type: 'error-text' })] as Message[]),
      ).rejects.toMatchObject({ code: 'invalid-argument', path: '1.content.0.output.value' });
      expect(await readMessages(box)).toEqual([question]);
      // A JSON output handed in by code: nested 100,000 deep, or a cycle — refused, no stack overflow.
      let deep: unknown = 'bottom';
      for (let level = 0; level < 100_000; level += 1) deep = [deep];
      const cycle: Record<string, unknown> = { name: 'c' };
      cycle.self = cycle;
      const wide = Object.fromEntries(Array.from({ length: 50_000 }, (_, at) => [`k${at}`, at]));
      for (const value of [deep, cycle]) {
        await expect(
          appendMessages(box, [call, result({ type: 'json', value })] as Message[]),
        ).rejects.toMatchObject({ code: 'invalid-argument', path: '1.content.0.output.value' });
      }
      await appendMessages(box, [call, result({ type: 'json', value: wide })] as Message[]);
      expect(await readMessages(box)).toHaveLength(3);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('messages.json parts by role', () => {
  const refusedParts: [string, unknown, string, string][] = [
    [
      'a text part in a tool message',
      { id: 't1', role: 'tool', content: [{ type: 'text', text: 'found' }] },
      '2.content.0.type',
      'a tool message cannot carry a text part; tool messages hold only tool-result parts',
    ],
    [
      'a text part after a tool result',
      {
        id: 't1',
        role: 'tool',
        content: [resultPart({ type: 'text', value: 'x' }), { type: 'text', text: 'y' }],
      },
      '2.content.1.type',
      'a tool message cannot carry a text part',
    ],
    [
      'a string content in a tool message',
      { id: 't1', role: 'tool', content: 'found' },
      '2.content',
      'a tool message cannot have text content',
    ],
    [
      'a tool-result part in an assistant message',
      { id: 't1', role: 'assistant', content: [resultPart({ type: 'text', value: 'x' })] },
      '2.content.0.type',
      'an assistant message cannot carry a tool-result part; assistant messages hold only text, reasoning and tool-call parts',
    ],
    [
      'a file part in an assistant message',
      { id: 't1', role: 'assistant', content: [{ type: 'file', data: 'aGk=', mediaType: 'text/plain' }] },
      '2.content.0.type',
      'an assistant message cannot carry a file part',
    ],
    [
      'a tool-call part in a user message',
      { id: 't1', role: 'user', content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'x', input: {} }] },
      '2.content.0.type',
      'a user message cannot carry a tool-call part; user messages hold only text and file parts',
    ],
    [
      'a reasoning part in a user message',
      { id: 't1', role: 'user', content: [{ type: 'reasoning', text: 'hm' }] },
      '2.content.0.type',
      'a user message cannot carry a reasoning part',
    ],
  ];

  it.each(refusedParts)('refuses %s', (_, message, path, problem) => {
    const text = fileOf([question, call, message]);
    const error = refusal(text);
    expect(error).toMatchObject({ code: 'invalid-config', path });
    expect(String(error.message)).toContain(problem);
    expect(error.line).toBeGreaterThan(lineOf(text, '"id": "t1"'));
  });

  it('accepts each role with the parts its compile sends', () => {
    const messages = [
      { id: 's1', role: 'system', content: [{ type: 'text', text: 'You help.' }] },
      {
        id: 'u1',
        role: 'user',
        content: [
          { type: 'text', text: 'see' },
          { type: 'file', data: 'aGk=', mediaType: 'text/plain', filename: 'a.txt' },
        ],
      },
      {
        id: 'a1',
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'look it up' },
          { type: 'text', text: 'Searching.' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'search', input: { q: 'raft' } },
        ],
      },
      result({ type: 'text', value: 'found' }),
      { id: 'a2', role: 'assistant', content: 'Found it.' },
    ];
    expect(parseMessages(fileOf(messages))).toEqual(messages);
  });
});

describe('messages.json ids', () => {
  it('refuses an id used twice, naming both positions and the id', () => {
    const text = fileOf([
      { id: 'm1', role: 'user', content: 'a' },
      { id: 'm2', role: 'assistant', content: 'b' },
      { id: 'm1', role: 'user', content: 'c' },
    ]);
    const error = refusal(text);
    expect(error).toMatchObject({
      code: 'invalid-config',
      path: '2.id',
      line: lineOf(text, '"m1"', lineOf(text, '"m2"')),
    });
    expect(String(error.message)).toContain(
      'message id "m1" is used by messages 0 and 2; ids must be unique',
    );
  });

  it('shortens a very long repeated id in the message', () => {
    const id = `session-${'x'.repeat(200)}`;
    const error = refusal(
      fileOf([
        { id, role: 'user', content: 'a' },
        { id, role: 'user', content: 'b' },
      ]),
    );
    expect(error).toMatchObject({ code: 'invalid-config', path: '1.id' });
    expect(String(error.message)).toContain(`message id "${id.slice(0, 59)}…" is used by messages 0 and 1`);
    expect(String(error.message)).not.toContain(id);
  });

  it('leaves a repeated id in an append to the append, which refuses it with conflict', async () => {
    const root = await mkdtemp(join(tmpdir(), 'ctxloom-messages-schema-'));
    try {
      const box = createSandbox({ root });
      const message = { id: 'm1', role: 'user', content: 'a' } as Message;
      await expect(appendMessages(box, [message, message])).rejects.toMatchObject({ code: 'conflict' });
      expect(await readMessages(box)).toEqual([]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('a compile over stored tool results', () => {
  const example = fileURLToPath(new URL('../../../examples/notebook', import.meta.url));
  let root: string;
  let workspace: Workspace;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'ctxloom-messages-compile-'));
    await cp(example, root, { recursive: true });
    workspace = openWorkspace({ root });
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('compiles every accepted output variant and sends each result to every format', async () => {
    const sessionId = 'raft-consensus';
    const calls = acceptedOutputs.map((_, index) => ({
      type: 'tool-call',
      toolCallId: `v${index}`,
      toolName: 'search',
      input: { q: `${index}` },
    }));
    const results = acceptedOutputs.map(([, output], index) => ({
      ...resultPart(output),
      toolCallId: `v${index}`,
    }));
    const stored = [
      { id: 'v-user', role: 'user', content: 'search for everything' },
      { id: 'v-call', role: 'assistant', content: calls },
      { id: 'v-results', role: 'tool', content: results },
    ] as Message[];
    await appendMessages(workspace.session(sessionId), stored);
    const compiled = await compileWorkspaceContext({ workspace, sessionId, query: 'what did you find?' });
    expect(compiled.report.fits).toBe(true);
    const aiSdkResults = compiled.aiSdk.messages.find(
      (message) => message.role === 'tool' && message.content.some((part) => part.toolCallId === 'v0'),
    );
    // Sent as counted: a `content` output goes as its text (text parts, `[type]` for the others).
    expect(aiSdkResults?.content).toEqual(
      results.map((part) =>
        (part.output as ToolResultOutput).type === 'content'
          ? { ...part, output: { type: 'text', value: toolOutputText(part.output as ToolResultOutput) } }
          : part,
      ),
    );
    const openaiResults = compiled.openai.messages.filter((message) => message.role === 'tool');
    const sent = new Map(openaiResults.map((message) => [message.tool_call_id, message.content]));
    expect(sent.get('v0')).toBe('found 3 papers');
    expect(sent.get('v3')).toBe('{"hits":[1,2.5,"three",true,null,{"deep":[]}]}');
    expect(sent.get('v7')).toBe('execution denied');
    expect(sent.get('v8')).toBe('the user said no');
    expect(sent.get('v9')?.split('\n')).toEqual([
      'two results',
      '[file]',
      '[file]',
      '[file]',
      '[file-data]',
      '[file-url]',
      '[file-url]',
      '[file-id]',
      '[file-id]',
      '[file-reference]',
      '[image-data]',
      '[image-url]',
      '[image-file-id]',
      '[image-file-reference]',
      '[custom]',
    ]);
    expect(sent.get('v10')).toBe('');
    const anthropicText = JSON.stringify(compiled.anthropic.messages);
    expect(anthropicText).toContain('"tool_use_id":"v9","content":"two results\\n[file]');
  });
});
