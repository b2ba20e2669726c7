import { describe, expect, it } from 'vitest';
import type { Summarizer } from '../../core/index.ts';
import type { BlackboardState } from '../../state/index.ts';
import { createCharCounter } from '../../testing/index.ts';
import { SqliteSaver } from '../checkpoint/sqlite-saver.ts';
import { prompts, textModel } from '../processes/mock-model.test-support.ts';
import { createSequentialProcess } from '../processes/sequential.ts';
import { submitInput } from '../session/submit-input.ts';
import { defineAgent } from './define-agent.ts';

const counter = createCharCounter();
const config = { configurable: { thread_id: 'summaries' } };

describe('agent summaries', () => {
  it('persist with the run they cover, so later calls summarise only what newly leaves the window', async () => {
    const summarised: string[][] = [];
    const summarizer: Summarizer = {
      name: 'recording',
      async summarize({ messages, previousSummary }) {
        summarised.push(messages.map((message) => message.id));
        return `${previousSummary ?? ''}[${messages.length} more]`;
      },
    };
    const model = textModel((_prompt, index) => `answer ${index} `.repeat(30));
    const graph = createSequentialProcess({
      counter,
      agents: [defineAgent({ id: 'tutor', systemPrompt: 'Tutor.', model, window: 1500, summarizer })],
    }).compile({ checkpointer: new SqliteSaver({ path: ':memory:' }) });
    for (let turn = 0; turn < 8; turn++) {
      await submitInput({
        graph,
        config,
        input: { inputId: `in-${turn}`, content: `question ${turn} `.repeat(25) },
        session: { namespace: 'tests', sessionId: 's' },
      });
    }
    const state = (await graph.getState(config)).values as BlackboardState;
    expect(state.compression__context).toContain('more]');
    expect(state.compression_through).not.toBeNull();
    // Every message was summarised at most once: coverage, not the whole history each call
    // (merging two periods of the rolling summary passes their texts, ids `summary:…`).
    const all = summarised.flat().filter((id) => !id.startsWith('summary:'));
    expect(new Set(all).size).toBe(all.length);
    // The summary reached the model, and covered messages did not come back.
    const last = prompts(model).at(-1) ?? '';
    expect(last).toContain('more]');
    expect(last).not.toContain('question 0 ');
  });
});
