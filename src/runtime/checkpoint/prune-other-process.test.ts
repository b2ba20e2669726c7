import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createBlackboard } from '../../state/index.ts';
import { createCharCounter } from '../../testing/index.ts';
import { defineAgent } from '../agents/define-agent.ts';
import { textModel } from '../processes/mock-model.test-support.ts';
import { createSequentialProcess } from '../processes/sequential.ts';
import { submitInput } from '../session/submit-input.ts';
import { SqliteSaver } from './sqlite-saver.ts';

const directory = mkdtempSync(join(tmpdir(), 'ctxloom-prune-other-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const blackboard = createBlackboard({ snapshotFrequency: 4 });
const graphOn = (saver: SqliteSaver) =>
  createSequentialProcess({
    counter: createCharCounter(),
    blackboard,
    agents: [
      defineAgent({ id: 'helper', systemPrompt: 'Answer.', model: textModel((_p, i) => `answer ${i}`) }),
    ],
  }).compile({ checkpointer: saver });

describe('a prune by another process', () => {
  it('never leaves this process reading or writing through a record it decoded before the prune', async () => {
    const path = join(directory, 'threads.db');
    const writer = new SqliteSaver({ path, durability: 'normal' });
    const pruner = new SqliteSaver({ path, durability: 'normal' });
    const graph = graphOn(writer);
    // Many prune points: after each turn another "process" prunes, then this one reads and writes on.
    for (let turn = 0; turn < 40; turn++) {
      const config = { configurable: { thread_id: 't1' } };
      await graph.getState(config); // decodes (and caches) the head and its chain
      await submitInput({
        graph,
        config,
        input: { inputId: `i${turn}`, content: `question ${turn}` },
        blackboard,
      });
      await pruner.prune({ keepLast: 3, threadId: 't1' });
    }
    await writer.close();
    // A fresh process reads every stored checkpoint of the thread back.
    const reader = new SqliteSaver({ path, durability: 'normal' });
    const state = (await graphOn(reader).getState({ configurable: { thread_id: 't1' } })).values as {
      messages: unknown[];
    };
    expect(state.messages).toHaveLength(80);
    for await (const tuple of reader.list({ configurable: { thread_id: 't1' } }))
      expect(tuple.checkpoint.id).toBeTruthy();
    await reader.close();
    await pruner.close();
  });
});
