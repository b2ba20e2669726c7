import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { createBlackboard } from '../../state/index.ts';
import { createCharCounter } from '../../testing/index.ts';
import { defineAgent } from '../agents/define-agent.ts';
import { textModel } from '../processes/mock-model.test-support.ts';
import { createSequentialProcess } from '../processes/sequential.ts';
import { submitInput } from '../session/submit-input.ts';

/**
 * A one-agent sequential process on `saver` (its `helper` answers `a<n>`), the graph the
 * saver tests run turns through. `snapshotFrequency` as in `createBlackboard`.
 */
export function helperProcess(saver: BaseCheckpointSaver, options: { snapshotFrequency?: number } = {}) {
  return createSequentialProcess({
    counter: createCharCounter(),
    blackboard: createBlackboard(options),
    agents: [
      defineAgent({ id: 'helper', systemPrompt: 'Answer.', model: textModel((_, index) => `a${index}`) }),
    ],
  }).compile({ checkpointer: saver });
}

/** Submits turn `index` (its question) of `threadId`'s session. */
export function helperTurn(graph: ReturnType<typeof helperProcess>, threadId: string, index: number) {
  return submitInput({
    graph,
    config: { configurable: { thread_id: threadId } },
    input: { inputId: `${threadId}-${index}`, content: `question ${index}` },
    session: { namespace: 'n', sessionId: threadId },
  });
}
