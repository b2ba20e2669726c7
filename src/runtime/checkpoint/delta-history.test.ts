import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BaseMessage } from '@langchain/core/messages';
import { afterAll, describe, expect, it } from 'vitest';
import { type BlackboardState, createBlackboard } from '../../state/index.ts';
import { createCharCounter } from '../../testing/index.ts';
import { defineAgent } from '../agents/define-agent.ts';
import { textModel } from '../processes/mock-model.test-support.ts';
import { createSequentialProcess } from '../processes/sequential.ts';
import { submitInput } from '../session/submit-input.ts';
import { SqliteSaver } from './sqlite-saver.ts';

const directory = mkdtempSync(join(tmpdir(), 'ctxloom-history-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

function open(path: string) {
  const saver = new SqliteSaver({ path });
  const graph = createSequentialProcess({
    counter: createCharCounter(),
    blackboard: createBlackboard({ snapshotFrequency: 3 }),
    agents: [
      defineAgent({ id: 'helper', systemPrompt: 'Answer.', model: textModel((_, index) => `a${index}`) }),
    ],
  }).compile({ checkpointer: saver });
  return { saver, graph };
}

const summary = (values: unknown) => {
  const state = values as BlackboardState;
  return {
    messages: (state.messages as BaseMessage[]).map((message) => `${message.id}:${message.text}`),
    inputs: state.processed_inputs,
    timeline: state.timeline.entries.length,
  };
};

describe('delta-channel history (cached head)', () => {
  it('gives the hot process the same state a fresh process reads, across snapshots and prunes', async () => {
    const path = join(directory, 'history.db');
    const hot = open(path);
    const config = { configurable: { thread_id: 'h' } };
    for (let turn = 0; turn < 14; turn += 1) {
      await submitInput({
        graph: hot.graph,
        config,
        input: { inputId: `in-${turn}`, content: `question ${turn}` },
        session: { namespace: 'n', sessionId: 's' },
      });
      if (turn % 5 === 4) await hot.saver.prune({ keepLast: 3 });
      const cold = open(path);
      const expected = summary((await cold.graph.getState(config)).values);
      expect(summary((await hot.graph.getState(config)).values)).toEqual(expected);
      expect(expected.messages).toHaveLength(2 * (turn + 1));
      expect(expected.timeline).toBe(turn + 1);
      await cold.saver.close();
    }
    await hot.saver.close();
  });
});
