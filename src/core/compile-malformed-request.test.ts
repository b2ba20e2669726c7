import { describe, expect, it } from 'vitest';
import { createCharCounter } from '../testing/char-counter.ts';
import { compileContext } from './compile.ts';
import type { CompileRequest } from './compile-types.ts';
import { CtxloomError } from './errors.ts';
import type { Message } from './message.ts';
import { withTokenCache } from './tokens.ts';

const counter = createCharCounter();

/** The error a compile of `request` (as JSON.parse could return it) throws. */
async function errorOf(request: unknown): Promise<unknown> {
  return compileContext(request as CompileRequest, { counter, window: 4000 }).then(
    () => undefined,
    (error: unknown) => error,
  );
}

const user = { id: 'u1', role: 'user' as const, content: 'hello' };

describe('compileContext on a request that is not of its type', () => {
  it.each([
    [
      'a history message whose content is a number',
      { history: [{ ...user, content: 42 }], query: 'q' },
      'history.0.content',
    ],
    [
      'a history message whose content is null',
      { history: [user, { ...user, id: 'u2', content: null }], query: 'q' },
      'history.1.content',
    ],
    [
      'a text part without its text',
      { history: [{ ...user, content: [{ type: 'text' }] }], query: 'q' },
      'history.0.content.0.text',
    ],
    [
      'a part of an unknown type',
      { history: [{ ...user, content: [{ type: 'image', image: 'x' }] }], query: 'q' },
      'history.0.content.0.type',
    ],
    ['a null in the history', { history: [user, null], query: 'q' }, 'history.1'],
    ['a history that is a string', { history: 'hello', query: 'q' }, 'history'],
    ['a query of null', { history: [user], query: null }, 'query'],
    ['a query whose content is a number', { query: { id: 'q', role: 'user', content: 5 } }, 'query.content'],
    ['a system prompt that is a number', { systemPrompt: 42, query: 'q' }, 'systemPrompt'],
    [
      'a context that is a number',
      { contexts: { knowledge__context: 42 }, query: 'q' },
      'contexts.knowledge__context',
    ],
    [
      'a tool result without its output',
      {
        history: [
          user,
          { id: 't1', role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c', toolName: 'read' }] },
        ],
      },
      'history.1.content.0.output',
    ],
    [
      'a step whose content is a number',
      { query: 'q', steps: [{ id: 's1', role: 'assistant', content: 7 }] },
      'steps.0.content',
    ],
    [
      'a history message of role bot',
      { history: [user, { ...user, id: 'b', role: 'bot' }], query: 'q' },
      'history.1.role',
    ],
    [
      'a history message without an id',
      { history: [{ role: 'user', content: 'x' }], query: 'q' },
      'history.0.id',
    ],
    ['a history message whose id is empty', { history: [{ ...user, id: '' }], query: 'q' }, 'history.0.id'],
    ['a step of role bot', { query: 'q', steps: [{ id: 's1', role: 'bot', content: 'x' }] }, 'steps.0.role'],
    [
      'a tool call in a user message',
      {
        history: [{ ...user, content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'n', input: {} }] }],
        query: 'q',
      },
      'history.0.content.0.type',
    ],
    [
      'a tool call in the query',
      { query: { ...user, content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'n', input: {} }] } },
      'query.content.0.type',
    ],
    ['a phase that is not one of the three', { query: 'q', phase: 'middle' }, 'phase'],
    ['a progress above 1', { query: 'q', progress: 3 }, 'progress'],
    ['a progress of NaN', { query: 'q', progress: Number.NaN }, 'progress'],
    ['a progress that is a string', { query: 'q', progress: '0.5' }, 'progress'],
    ['a summary that is a number', { query: 'q', compression: { summary: 42 } }, 'compression.summary'],
    ['a compression that is a string', { query: 'q', compression: 'sum' }, 'compression'],
    [
      'a summary end that is a number',
      { query: 'q', compression: { summary: 's', throughMessageId: 3 } },
      'compression.throughMessageId',
    ],
    [
      'uncarried ids in an array',
      { query: 'q', compression: { summary: 's', uncarried: ['u1'] } },
      'compression.uncarried',
    ],
    ['a query whose role is system', { query: { id: 'q', role: 'system', content: 'x' } }, 'query.role'],
    [
      'a query whose role is assistant',
      { query: { id: 'q', role: 'assistant', content: 'x' } },
      'query.role',
    ],
    ['a query whose role is tool', { query: { id: 'q', role: 'tool', content: 'x' } }, 'query.role'],
    [
      'a tool message whose content is text',
      { history: [user, { id: 't1', role: 'tool', content: 'found' }], query: 'q' },
      'history.1.content',
    ],
    [
      'a step of role tool whose content is text',
      { query: 'q', steps: [{ id: 's1', role: 'tool', content: 'found' }] },
      'steps.0.content',
    ],
  ])('names %s and where it is (invalid-argument), never a TypeError', async (_, request, path) => {
    const error = await errorOf(request);
    expect(CtxloomError.is(error, 'invalid-argument')).toBe(true);
    expect((error as CtxloomError).path).toBe(path);
    expect((error as CtxloomError).message).toContain(`(at ${path})`);
  });

  it('says which message is wrong, by id, and what it got', async () => {
    const error = await errorOf({
      history: [user, { ...user, id: 'a7', role: 'assistant', content: 42 }],
      query: 'q',
    });
    expect((error as CtxloomError).message).toBe(
      'message "a7": content must be a string or an array of parts, got a number (42) (at history.1.content)',
    );
  });

  it('names a message of an unknown role with a caching counter too (its texts skip the memo)', async () => {
    const error = await compileContext(
      { history: [user, { ...user, id: 'b', role: 'bot' } as unknown as Message], query: 'q' },
      { counter: withTokenCache(createCharCounter()), window: 4000 },
    ).catch((caught: unknown) => caught);
    expect((error as CtxloomError).message).toBe(
      'message "b": role must be system, user, assistant or tool, got "bot" (at history.1.role)',
    );
  });

  it('names a message whose role was changed in place after an earlier compile measured it', async () => {
    const message: Message = { id: 'a1', role: 'assistant', content: [{ type: 'text', text: 'hi' }] };
    const history = [user, message];
    await compileContext({ history, query: 'q' }, { counter, window: 4000 });
    (message as { role: string }).role = 'user';
    message.content = [{ type: 'tool-call', toolCallId: 'c', toolName: 'read', input: {} }];
    const error = await errorOf({ history, query: 'q' });
    expect((error as CtxloomError).message).toBe(
      'message "a1": a user message cannot carry a tool-call part; user messages hold only text, file parts (at history.1.content.0.type)',
    );
  });

  /** The error of compiling `history` with a counter of the memo and with a caching one (texts skip the memo). */
  async function errorsOfBoth(history: Message[]): Promise<unknown[]> {
    const errors: unknown[] = [];
    for (const measuring of [counter, withTokenCache(createCharCounter())]) {
      errors.push(
        await compileContext({ history, query: 'q' }, { counter: measuring, window: 4000 }).catch(
          (caught: unknown) => caught,
        ),
      );
    }
    return errors;
  }

  it('says a tool message carries tool-result parts, with a caching counter too (plain texts skip the memo)', async () => {
    const tool = { id: 't1', role: 'tool', content: 'found' } as unknown as Message;
    for (const error of await errorsOfBoth([user, tool])) {
      expect(error).toBeInstanceOf(CtxloomError);
      expect((error as CtxloomError).message).toBe(
        'message "t1": a tool message cannot have text content; tool messages hold only tool-result parts (at history.1.content)',
      );
    }
  });

  it.each([
    {
      role: 'tool',
      part: { type: 'text', text: 'found' },
      says: 'a tool message cannot carry a text part; tool messages hold only tool-result parts',
    },
    {
      role: 'tool',
      part: { type: 'tool-call', toolCallId: 'c', toolName: 'read', input: {} },
      says: 'a tool message cannot carry a tool-call part; tool messages hold only tool-result parts',
    },
    {
      role: 'user',
      part: { type: 'tool-result', toolCallId: 'c', toolName: 'read', output: { type: 'text', value: 'x' } },
      says: 'a user message cannot carry a tool-result part; user messages hold only text, file parts',
    },
  ])(
    'refuses a $role message carrying a $part.type part, as the stores and emitters do',
    async ({ role, part, says }) => {
      const message = { id: 'm1', role, content: [part] } as unknown as Message;
      for (const error of await errorsOfBoth([user, message])) {
        expect(error).toBeInstanceOf(CtxloomError);
        expect((error as CtxloomError).message).toBe(`message "m1": ${says} (at history.1.content.0.type)`);
      }
    },
  );

  it.each(['user', 'assistant'])(
    'refuses a %s message carrying a file part without its media type, with either counter',
    async (role) => {
      const message = { id: 'f1', role, content: [{ type: 'file', data: 'aGk=' }] } as unknown as Message;
      for (const error of await errorsOfBoth([user, message])) {
        expect(error).toBeInstanceOf(CtxloomError);
        expect((error as CtxloomError).message).toBe(
          'message "f1": a file part needs a string mediaType, got undefined (at history.1.content.0.mediaType)',
        );
      }
    },
  );

  // Bytes where the type says a base64 or URL string: no counter reads a file, so the compile's
  // shape check is what stops it before the provider does.
  it.each([
    { role: 'user', data: { 0: 104, 1: 105 }, got: 'an object' },
    { role: 'assistant', data: 42, got: 'a number (42)' },
  ])(
    'refuses a $role message carrying a file part whose data is not a string',
    async ({ role, data, got }) => {
      const message = {
        id: 'f2',
        role,
        content: [{ type: 'file', data, mediaType: 'image/png' }],
      } as unknown as Message;
      for (const error of await errorsOfBoth([user, message])) {
        expect(error).toBeInstanceOf(CtxloomError);
        expect((error as CtxloomError).message).toBe(
          `message "f2": a file part needs a string data, got ${got} (at history.1.content.0.data)`,
        );
      }
    },
  );

  it('takes an assistant message carrying a tool result and a file, as the AI SDK sends tools its provider ran', async () => {
    const assistant: Message = {
      id: 'a1',
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: 'ws', toolName: 'web_search', input: { query: 'raft' } },
        {
          type: 'tool-result',
          toolCallId: 'ws',
          toolName: 'web_search',
          output: { type: 'text', value: 'Raft is a consensus algorithm.' },
        },
        { type: 'file', data: 'aGk=', mediaType: 'image/png' },
        { type: 'text', text: 'Raft elects a leader.' },
      ],
    };
    for (const compiled of await Promise.all(
      [counter, withTokenCache(createCharCounter())].map((measuring) =>
        compileContext({ history: [user, assistant], query: 'q' }, { counter: measuring, window: 4000 }),
      ),
    )) {
      expect(compiled.messages.find((message) => message.id === 'a1')?.content).toEqual(assistant.content);
    }
  });

  it('passes on an error it cannot trace to the request', async () => {
    const failing = new TypeError('the counter failed');
    const broken = {
      ...counter,
      countText: () => {
        throw failing;
      },
    };
    const error = await compileContext(
      { history: [user], query: 'q' },
      { counter: broken, window: 4000 },
    ).catch((caught: unknown) => caught);
    expect(error).toBe(failing);
  });
});
