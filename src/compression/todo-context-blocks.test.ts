import { describe, expect, it } from 'vitest';
import { compileContext } from '../core/index.ts';
import { createCharCounter } from '../testing/index.ts';
import { applyRequirementDelta } from './apply-requirement-delta.ts';
import { type CompressionState, createCompressionState } from './compression-state.ts';
import { createRequirementTodoSnapshot } from './create-requirement-todo-snapshot.ts';
import { registerArtifact } from './register-artifact.ts';
import { formatThreadId } from './thread-id.ts';
import { createCompressionSource, todoContextBlocks } from './todo-context-blocks.ts';

const counter = createCharCounter();
const threadId = formatThreadId({ app: 'etl', userId: 'u1', sessionId: 's1' });
const message = { id: 'm1', turnIndex: 0, text: 'Output dw.sales daily. Tests must check nulls.' };

function state(): CompressionState {
  const base = createCompressionState({ threadId });
  const add = (agentId: string | null, quote: string) => {
    const snapshot = createRequirementTodoSnapshot({ threadId, agentId });
    const id = agentId === null ? 'G1' : `${agentId}#1`;
    const delta = {
      id: `d-${id}`,
      threadId,
      agentId,
      baseRevision: 0,
      ops: [
        {
          op: 'add',
          id,
          type: 'output',
          priority: 'must',
          text: quote,
          evidence: { turnIndex: 0, messageId: 'm1', quote },
        },
      ],
    };
    return applyRequirementDelta({ snapshot, delta, messages: [message] }).snapshot;
  };
  const artifacts = registerArtifact(
    base.artifacts,
    {
      kind: 'sql_job',
      name: 'sales',
      agentId: 'sql_developer',
      content: 'INSERT INTO dw.sales SELECT 1',
      turnIndex: 1,
    },
    { clock: () => 0 },
  ).state;
  return {
    ...base,
    requirements: {
      ...base.requirements,
      global: add(null, 'Output dw.sales daily'),
      scoped: { tester: add('tester', 'Tests must check nulls') },
    },
    artifacts,
  };
}

describe('todoContextBlocks', () => {
  it('renders the global TODO, the called agent’s scoped TODO and the artifact index as todo__context blocks', () => {
    const blocks = todoContextBlocks(state(), { counter, maxTokens: 2000, agentId: 'tester' });
    expect(blocks.map((block) => [block.id.split(':').at(-1), block.layer, block.priority])).toEqual([
      ['global', 'todo__context', 0.95],
      ['tester', 'todo__context', 0.9],
      ['artifacts', 'todo__context', 0.7],
    ]);
    expect(todoContextBlocks(state(), { counter, maxTokens: 2000, agentId: 'planner' })).toHaveLength(2);
  });

  it('keeps the three views within the budget together', () => {
    for (const maxTokens of [0, 40, 80, 160, 320]) {
      const blocks = todoContextBlocks(state(), { counter, maxTokens, agentId: 'tester' });
      expect(blocks.reduce((sum, block) => sum + block.tokens, 0)).toBeLessThanOrEqual(maxTokens);
    }
  });

  it('feeds the core compile as a source for the agent named in the request metadata', async () => {
    const current = state();
    const compiled = await compileContext(
      { systemPrompt: 'You are the tester.', query: 'write the tests', metadata: { agentId: 'tester' } },
      { counter, window: 4000, sources: [createCompressionSource({ load: () => current })] },
    );
    expect(compiled.contexts.todo__context).toContain('G1 [must · output] Output dw.sales daily');
    expect(compiled.contexts.todo__context).toContain('tester#1');
    expect(compiled.contexts.todo__context).toContain('sql_job:sales@v1');
  });
});

describe('todoContextBlocks after /compress', () => {
  it('renders requirements without evidence and artifacts without history once clipping is on', () => {
    const current = state();
    const before = todoContextBlocks(current, { counter, maxTokens: 2000, agentId: 'tester' });
    const after = todoContextBlocks(
      { ...current, forceContextClipping: true, clippingScope: 'all' },
      { counter, maxTokens: 2000, agentId: 'tester' },
    );
    const text = (blocks: typeof before) => blocks.map((block) => block.content).join('\n');
    expect(text(before)).toContain('evidence: turn 0');
    expect(text(after)).not.toContain('evidence');
    expect(text(after)).not.toContain('### Recent by agent');
    expect(text(after)).toContain('G1 [must · output]');
    const requirementOnly = todoContextBlocks(
      { ...current, forceContextClipping: true, clippingScope: 'requirement' },
      { counter, maxTokens: 2000, agentId: 'tester' },
    );
    expect(text(requirementOnly)).toContain('### Recent by agent');
    expect(text(requirementOnly)).not.toContain('evidence: turn');
  });
});
