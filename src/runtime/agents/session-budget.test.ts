import { describe, expect, it } from 'vitest';
import type { Message } from '../../core/index.ts';
import { toLangChain } from '../../langchain/index.ts';
import { StateBuilder } from '../../state/index.ts';
import { createCharCounter } from '../../testing/index.ts';
import type { SessionLayers } from '../../workspace/index.ts';
import { textModel } from '../processes/mock-model.test-support.ts';
import { defineAgent } from './define-agent.ts';
import { processRule } from './process-rules.ts';
import { compileAgentCall } from './run-agent.ts';

const counter = createCharCounter();
const model = textModel(() => 'ok');

/** A session's layers as `sessionLayers` makes them, with `change` applied. */
function layers(change: Partial<SessionLayers> = {}): SessionLayers {
  return {
    systemPrompt: 'Session prompt.',
    blocks: [],
    sources: [],
    budget: { window: 3000, outputReserveRatio: 0.5 },
    composition: { order: 'cache-friendly', merge: false, enableShareContext: true },
    warnings: [],
    ...change,
  };
}

const QUERY: NonNullable<SessionLayers['query']> = {
  text: 'Explain [a.md:1:2]',
  id: 'human:s:m3',
  content: 'Explain [a.md:1:2]\n\n<reference source="a.md:1-2">\nline one\nline two\n</reference>',
  references: [
    {
      reference: { type: 'lines', path: 'a.md', startLine: 1, endLine: 2 },
      path: 'a.md',
      startLine: 1,
      endLine: 2,
      text: 'line one\nline two',
    },
  ],
  metadata: { references: [{ path: 'a.md', startLine: 1, endLine: 2 }] },
};

const STORED: Message[] = [
  { id: 'human:s:m1', role: 'user', content: 'first question' },
  { id: 'a1', role: 'assistant', content: 'first answer' },
  { id: 'human:s:m2', role: 'user', content: 'second question' },
  { id: 'a2', role: 'assistant', content: 'second answer' },
  { id: 'human:s:m3', role: 'user', content: QUERY.text },
];

const state = (messages: readonly Message[] = STORED) =>
  new StateBuilder({ messages: toLangChain(messages) });

describe('compileAgentCall under a session’s layers', () => {
  it('compiles under the session’s window and reserve when the agent’s own window is larger', async () => {
    const agent = defineAgent({ id: 'helper', systemPrompt: 'You help.', model });
    const compiled = await compileAgentCall({
      agent,
      sb: state(),
      rule: processRule('agent'),
      counter,
      sessionLayers: layers(),
    });
    expect(compiled.report).toMatchObject({ window: 3000, outputReserve: 1500, inputBudget: 1500 });
    expect(compiled.maxOutputTokens).toBe(1500);
  });

  it('keeps the agent’s window as a cap: a manifest cannot widen what the agent’s model holds', async () => {
    const agent = defineAgent({ id: 'helper', systemPrompt: 'You help.', model, window: 1000 });
    const compiled = await compileAgentCall({
      agent,
      sb: state(),
      rule: processRule('agent'),
      counter,
      sessionLayers: layers(),
    });
    // The manifest's reserve share, of the agent's window.
    expect(compiled.report).toMatchObject({ window: 1000, outputReserve: 500 });
  });

  it('applies the manifest’s `last-n` history window and its composition: order and merge', async () => {
    const agent = defineAgent({
      id: 'helper',
      systemPrompt: 'You help.',
      model,
      framework: 'Answer briefly.',
    });
    const compiled = await compileAgentCall({
      agent,
      sb: state(),
      rule: processRule('agent'),
      counter,
      sessionLayers: layers({
        budget: { window: 3000, outputReserveRatio: 0.5, maxHistoryMessages: 2 },
        composition: { order: 'default', merge: true, enableShareContext: true },
      }),
    });
    expect(compiled.report.order).toBe('default');
    const history = compiled.report.layers.find((layer) => layer.layer === 'history');
    expect(history?.dropped.filter((entry) => entry.reason.type === 'history-window')).toHaveLength(2);
    // Merged: one system message holds the system prompt and the framework layer.
    expect(compiled.messages.filter((message) => message.role === 'system')).toHaveLength(1);
    expect(compiled.messages.map((message) => message.id).slice(1)).toEqual([
      'human:s:m2',
      'a2',
      'human:s:m3',
    ]);
  });

  it('shares a layer only when both the process rule and the manifest allow it', async () => {
    const agent = defineAgent({
      id: 'helper',
      systemPrompt: 'You help.',
      model,
      framework: 'Answer briefly.',
    });
    const withTodo = new StateBuilder({
      messages: toLangChain(STORED),
      todo: { items: [{ id: 't1', title: 'Explain the log', status: 'pending' }] },
    });
    const compile = (enableShareContext: boolean) =>
      compileAgentCall({
        agent,
        sb: withTodo,
        rule: processRule('agent'),
        counter,
        sessionLayers: layers({ composition: { order: 'cache-friendly', merge: false, enableShareContext } }),
      });
    expect((await compile(true)).contexts.todo__context).toContain('Explain the log');
    const unshared = await compile(false);
    expect(unshared.contexts.todo__context).toBeUndefined();
    // framework__context is always included (seed 000).
    expect(unshared.contexts.framework__context).toBe('Answer briefly.');
  });

  it('sends the turn’s message with its references merged, wherever it is in the call', async () => {
    const agent = defineAgent({ id: 'helper', systemPrompt: 'You help.', model });
    const sessionLayers = layers({ query: QUERY });
    // As the query (the stored message of the turn).
    const asQuery = await compileAgentCall({
      agent,
      sb: state(),
      rule: processRule('agent'),
      counter,
      sessionLayers,
    });
    expect(asQuery.query).toMatchObject({ id: QUERY.id, content: QUERY.content, metadata: QUERY.metadata });
    // In the history of a later agent of the turn.
    const answered = [...STORED, { id: 'a3', role: 'assistant', content: 'draft' } as const];
    const later = await compileAgentCall({
      agent,
      sb: state(answered),
      rule: processRule('agent'),
      counter,
      query: 'Review the draft.',
      sessionLayers,
    });
    expect(later.history.find((message) => message.id === QUERY.id)?.content).toBe(QUERY.content);
    expect(later.query?.content).toBe('Review the draft.');
    // A preview's query of the turn's text (nothing stored yet).
    const preview = await compileAgentCall({
      agent,
      sb: state(STORED.slice(0, 4)),
      rule: processRule('agent'),
      counter,
      query: QUERY.text,
      sessionLayers,
    });
    expect(preview.query?.content).toBe(QUERY.content);
    // An earlier message is sent as stored.
    expect(preview.history.map((message) => message.content)).toContain('second question');
  });
});
