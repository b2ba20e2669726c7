import { describe, expect, it } from 'vitest';
import { createCharCounter } from '../testing/char-counter.ts';
import { compileContext } from './compile.ts';
import type { CompileRequest } from './compile-types.ts';
import type { Message } from './message.ts';

const counter = createCharCounter();

const call = (id: string, callId: string): Message => ({
  id,
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: callId, toolName: 'read_file', input: { path: 'a.md' } }],
});
const result = (id: string, callId: string): Message => ({
  id,
  role: 'tool',
  content: [
    { type: 'tool-result', toolCallId: callId, toolName: 'read_file', output: { type: 'text', value: 'A.' } },
  ],
});
const user = (id: string): Message => ({ id, role: 'user', content: `question ${id}` });
const answer = (id: string): Message => ({ id, role: 'assistant', content: `answer ${id}` });

async function compile(request: CompileRequest, maxHistoryMessages?: number) {
  return compileContext(request, {
    counter,
    window: 100_000,
    ...(maxHistoryMessages === undefined ? {} : { maxHistoryMessages }),
  });
}

describe('compileContext on tool calls and results that do not pair (decision 087)', () => {
  it('warns tool-call-unanswered for a call no result answers, and sends the history as it is', async () => {
    const history = [user('u1'), call('a1', 'c1'), answer('r1')];
    const { history: sent, report } = await compile({ history, query: 'next' });
    expect(sent.map((message) => message.id)).toEqual(['u1', 'a1', 'r1']);
    expect(report.warnings).toEqual([
      {
        code: 'tool-call-unanswered',
        message:
          'the tool call "c1" of message "a1" has no result after it; providers refuse a request with an unanswered call',
        messageId: 'a1',
      },
    ]);
  });

  it('warns tool-result-orphaned for a result whose call no earlier message makes', async () => {
    const history = [user('u1'), result('t1', 'c9'), answer('r1')];
    const { report } = await compile({ history, query: 'next' });
    expect(report.warnings).toEqual([
      expect.objectContaining({ code: 'tool-result-orphaned', messageId: 't1' }),
    ]);
  });

  it('reads the steps with the history: a step answering a call, a step result without one', async () => {
    const steps = [call('s1', 'c2'), result('s2', 'c2'), result('s3', 'c3')];
    const { report } = await compile({ history: [user('u1'), answer('r1')], query: 'next', steps });
    expect(report.warnings).toEqual([
      expect.objectContaining({ code: 'tool-result-orphaned', messageId: 's3' }),
    ]);
  });

  it('says nothing of a history whose calls are all answered', async () => {
    const history = [user('u1'), call('a1', 'c1'), result('t1', 'c1'), answer('r1')];
    const { report } = await compile({
      history,
      query: 'next',
      steps: [call('s1', 'c2'), result('s2', 'c2')],
    });
    expect(report.warnings).toBeUndefined();
  });

  it('says nothing of a result whose call the history window left out (the window moves past it)', async () => {
    const history = [user('u1'), call('a1', 'c1'), result('t1', 'c1'), answer('r1')];
    const { history: sent, report } = await compile({ history, query: 'next' }, 2);
    expect(sent.map((message) => message.id)).toEqual(['r1']);
    expect(report.warnings).toBeUndefined();
  });

  it('lists twenty of each kind, then how many more, for a history of thousands (and echoes no huge id)', async () => {
    const history: Message[] = [user('u1')];
    for (let at = 0; at < 2000; at++) history.push(call(`a${at}`, `c${at}`), answer(`r${at}`));
    for (let at = 0; at < 2000; at++)
      history.push(result(`t${at}`, `x${'y'.repeat(at === 0 ? 100_000 : 1)}${at}`));
    const { report } = await compile({ history, query: 'next' });
    const warnings = report.warnings ?? [];
    const unanswered = warnings.filter((warning) => warning.code === 'tool-call-unanswered');
    const orphaned = warnings.filter((warning) => warning.code === 'tool-result-orphaned');
    expect(unanswered).toHaveLength(21);
    expect(orphaned).toHaveLength(21);
    expect(unanswered.at(-1)?.message).toBe(
      '1980 more tool calls have no result after them (the first 20 are listed)',
    );
    expect(orphaned.at(-1)?.message).toBe(
      '1980 more tool results answer no earlier call (the first 20 are listed)',
    );
    for (const warning of warnings) expect(warning.message.length).toBeLessThan(1000);
  });
});
