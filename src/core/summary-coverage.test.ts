import { describe, expect, it } from 'vitest';
import { createCharCounter } from '../testing/char-counter.ts';
import { compileContext } from './compile.ts';
import type { Message } from './message.ts';

const counter = createCharCounter();

/** A turn that reads two files in one step: question, two calls, two results, answer. */
function turn(at: number): Message[] {
  const call = (id: string) => ({
    type: 'tool-call' as const,
    toolCallId: id,
    toolName: 'read_file',
    input: { path: `${id}.md` },
  });
  const result = (id: string) => ({
    type: 'tool-result' as const,
    toolCallId: id,
    toolName: 'read_file',
    output: { type: 'text' as const, value: `the text of ${id}.md` },
  });
  return [
    { id: `u${at}`, role: 'user', content: `question ${at}` },
    { id: `a${at}`, role: 'assistant', content: [call(`c${at}`), call(`d${at}`)] },
    { id: `t${at}`, role: 'tool', content: [result(`c${at}`)] },
    { id: `t${at}b`, role: 'tool', content: [result(`d${at}`)] },
    { id: `r${at}`, role: 'assistant', content: `answer ${at}` },
  ];
}

/** Tool results sent whose call is not sent before them. */
function orphans(messages: readonly Message[]): string[] {
  const calls = new Set<string>();
  const found: string[] = [];
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'tool-call') calls.add(part.toolCallId);
      if (part.type === 'tool-result' && !calls.has(part.toolCallId)) found.push(part.toolCallId);
    }
  }
  return found;
}

describe('compileContext with a stored summary that ends inside a tool step', () => {
  it.each(['a1', 't1'])(
    'covers the results of the calls it covers (through %s): none is sent without its call',
    async (through) => {
      const history = [...turn(0), ...turn(1), ...turn(2)];
      const { messages, report } = await compileContext(
        {
          history,
          query: 'next?',
          compression: { summary: 'Turns 0 and 1 read files.', throughMessageId: through },
        },
        { counter, window: 100_000 },
      );
      expect(orphans(messages)).toEqual([]);
      const sent = messages.map((message) => message.id);
      expect(sent).not.toContain('t1b');
      expect(sent).toContain('r1');
      const history_ = report.layers.find((layer) => layer.layer === 'history');
      const summarized = history_?.dropped
        .filter((entry) => entry.reason.type === 'summarized')
        .map((entry) => entry.id);
      expect(summarized).toContain('history:t1b');
      expect(report.totalTokens).toBe(counter.countMessages(messages));
    },
  );

  it('leaves a summary that ends at a turn as it was', async () => {
    const history = [...turn(0), ...turn(1)];
    const { messages } = await compileContext(
      { history, query: 'next?', compression: { summary: 'Turn 0.', throughMessageId: 'r0' } },
      { counter, window: 100_000 },
    );
    expect(
      messages.filter((message) => message.metadata?.layer === 'history').map((message) => message.id),
    ).toEqual(turn(1).map((message) => message.id));
  });
});

describe('compileContext with a stored summary whose end is not in the history', () => {
  it('sends every message and warns summary-end-not-found, naming the id', async () => {
    const history = [...turn(1), ...turn(2)];
    const { history: sent, report } = await compileContext(
      { history, query: 'next', compression: { summary: 'earlier talk', throughMessageId: 'r0' } },
      { counter, window: 100_000 },
    );
    expect(sent.map((message) => message.id)).toEqual(history.map((message) => message.id));
    expect(report.warnings).toEqual([
      expect.objectContaining({ code: 'summary-end-not-found', messageId: 'r0' }),
    ]);
  });

  it('does not warn when the end is a step of the turn', async () => {
    const [question, ...steps] = turn(1) as [Message, ...Message[]];
    const { report } = await compileContext(
      { history: [question], query: 'next', steps, compression: { summary: 's', throughMessageId: 'a1' } },
      { counter, window: 100_000 },
    );
    expect(report.warnings).toBeUndefined();
  });
});
