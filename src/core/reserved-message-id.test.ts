import { describe, expect, it } from 'vitest';
import { createCharCounter } from '../testing/char-counter.ts';
import { compileContext } from './compile.ts';
import { compose } from './compose.ts';
import type { Message } from './message.ts';
import { firstFreeId, isReservedMessageId } from './reserved-message-id.ts';

const user = (id: string, content = `text of ${id}`): Message => ({ id, role: 'user', content });
const assistant = (id: string, content = `answer ${id}`): Message => ({ id, role: 'assistant', content });
const idsOf = (messages: readonly { id: string }[]) => messages.map((message) => message.id);
const duplicates = (ids: readonly string[]) => ids.filter((id, index) => ids.indexOf(id) !== index);

describe('isReservedMessageId', () => {
  it('reserves the layer: namespace only', () => {
    expect(isReservedMessageId('layer:system')).toBe(true);
    expect(isReservedMessageId('layer:')).toBe(true);
    for (const id of [
      'system',
      'Layer:system',
      'layers:x',
      'query:abc',
      'history:m1',
      'm1',
      'human:s:layer:x',
    ]) {
      expect(isReservedMessageId(id), id).toBe(false);
    }
  });
});

describe('firstFreeId', () => {
  it('keeps a free id and gives a taken one the first free <id>:<n>', () => {
    expect(firstFreeId('a', new Set(['b']))).toBe('a');
    expect(firstFreeId('a', new Set(['a']))).toBe('a:2');
    expect(firstFreeId('a', new Set(['a', 'a:2', 'a:3']))).toBe('a:4');
  });
});

describe('compileContext with a message id of the layer: namespace', () => {
  it('warns twenty reserved ids one by one, then how many more, for a history of thousands', async () => {
    const history = Array.from({ length: 3000 }, (_, at) => user(`layer:m${at}`));
    const { report } = await compileContext(
      { systemPrompt: 'You help.', history, query: 'next' },
      { counter: createCharCounter(), window: 1_000_000 },
    );
    const warned = (report.warnings ?? []).filter((warning) => warning.code === 'message-id-reserved');
    expect(warned).toHaveLength(21);
    expect(warned.at(-1)?.message).toBe(
      '2980 more message ids are in the "layer:" namespace (the first 20 are listed)',
    );
  });

  it('sends each message under its own id: the layer a message id names gets a free id, warned', async () => {
    const { messages, report } = await compileContext(
      {
        systemPrompt: 'You are a tutor.',
        contexts: { knowledge__context: 'Raft elects a leader.' },
        history: [user('layer:system'), assistant('layer:knowledge__context'), user('m3')],
        query: 'What next?',
      },
      { counter: createCharCounter(), window: 10_000 },
    );
    const ids = idsOf(messages);
    expect(duplicates(ids)).toEqual([]);
    expect(duplicates(idsOf(report.messages ?? []))).toEqual([]);
    expect(idsOf(report.messages ?? [])).toEqual(ids);
    // The caller's messages keep their ids (their blocks are history:<id>); the layers yield.
    expect(messages.find((message) => message.content === 'You are a tutor.')?.id).toBe('layer:system:2');
    expect(messages.filter((message) => message.id === 'layer:system')).toEqual([
      expect.objectContaining({ role: 'user', content: 'text of layer:system' }),
    ]);
    expect(ids).toContain('layer:knowledge__context:2');
    const history = report.layers.find((layer) => layer.layer === 'history');
    expect(history?.kept.map((block) => block.id)).toEqual([
      'history:layer:system',
      'history:layer:knowledge__context',
      'history:m3',
    ]);
    expect(report.warnings?.map((warning) => [warning.code, warning.messageId])).toEqual([
      ['message-id-reserved', 'layer:system'],
      ['message-id-reserved', 'layer:knowledge__context'],
    ]);
  });

  it('does the same for a step or a message query, and for merged layers', async () => {
    const { messages, report } = await compileContext(
      {
        systemPrompt: 'sys',
        contexts: { framework__context: 'rules' },
        history: [user('m1'), assistant('m2')],
        query: user('layer:system+framework__context', 'Why?'),
        steps: [assistant('layer:system')],
      },
      { counter: createCharCounter(), window: 10_000, policy: { merge: true } },
    );
    expect(duplicates(idsOf(messages))).toEqual([]);
    expect(idsOf(messages)[0]).toBe('layer:system+framework__context:2');
    expect(idsOf(messages).slice(-2)).toEqual(['layer:system+framework__context', 'layer:system']);
    expect(report.warnings?.map((warning) => warning.messageId).sort()).toEqual([
      'layer:system',
      'layer:system+framework__context',
    ]);
  });

  it('keeps the layer ids and warns nothing when no message id is reserved', async () => {
    const { messages, report } = await compileContext(
      { systemPrompt: 'sys', history: [user('m1'), assistant('m2')], query: 'q' },
      { counter: createCharCounter(), window: 10_000 },
    );
    expect(idsOf(messages)[0]).toBe('layer:system');
    expect(report.warnings).toBeUndefined();
  });

  it('sees a reserved id a recompile appends, and forgets one the history no longer has', async () => {
    const counter = createCharCounter();
    const compile = async (history: readonly Message[]) =>
      compileContext({ systemPrompt: 'sys', history, query: 'q' }, { counter, window: 10_000 });
    const base = [user('m1'), assistant('m2')];
    const first = await compile(base);
    expect(idsOf(first.messages)[0]).toBe('layer:system');
    // The same first message: the counter's measured list is extended, not measured again.
    const appended = await compile([...base, user('layer:system')]);
    expect(idsOf(appended.messages)[0]).toBe('layer:system:2');
    expect(duplicates(idsOf(appended.messages))).toEqual([]);
    const replaced = await compile([...base, user('m3')]);
    expect(idsOf(replaced.messages)[0]).toBe('layer:system');
    expect(replaced.report.warnings).toBeUndefined();
    // A frozen history's preparation is kept: it keeps the answer too.
    const frozen = Object.freeze([user('layer:system'), ...base]);
    for (let round = 0; round < 2; round++) {
      const again = await compile(frozen);
      expect(idsOf(again.messages)[0]).toBe('layer:system:2');
      expect(again.report.warnings?.[0]?.code).toBe('message-id-reserved');
    }
  });
});

describe('compose with a message id of the layer: namespace', () => {
  it('gives the layer message a free id', () => {
    const messages = compose({ systemPrompt: 'sys', history: [user('layer:system')], query: 'q' });
    expect(idsOf(messages)).toEqual(['layer:system:2', 'layer:system', expect.stringMatching(/^query:/u)]);
  });
});
