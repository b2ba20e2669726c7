import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { defineAgent } from '../../src/runtime/agents/define-agent.ts';
import { createCompressionBlackboard } from '../../src/runtime/compression/compression-blackboard.ts';
import {
  compressionSources,
  createCompressionCompactStage,
} from '../../src/runtime/compression/compression-compact-stage.ts';
import { createDynamicProcess } from '../../src/runtime/processes/dynamic.ts';
import { textModel } from '../../src/runtime/processes/mock-model.test-support.ts';
import { createSequentialProcess } from '../../src/runtime/processes/sequential.ts';
import { submitInput } from '../../src/runtime/session/submit-input.ts';
import { createCharCounter } from '../../src/testing/index.ts';

/** A real ctxloom process under benchmark, driven turn by turn through `submitInput`. */
export interface RealProcess {
  /** Runs turn `index` (0-based): the user message in, the agent's reply out. */
  turn(index: number): Promise<void>;
  /** `graph.getState()` of the thread: every delta channel rebuilt. Returns the message count. */
  load(): Promise<number>;
}

/** The processes the suite runs. */
export const REAL_PROCESSES = ['sequential', 'dynamic'] as const;
export type RealProcessKind = (typeof REAL_PROCESSES)[number];

/**
 * Builds a real process on `saver`: `sequential` is `createSequentialProcess` with one agent;
 * `dynamic` is `createDynamicProcess` with the compression Blackboard, the compression compact
 * stage (soft/hard triggers on a 6 000-token window, so it compresses every few dozen turns)
 * and a router that sends each user message to the one agent once. The agent's model replies
 * with the next LoCoMo message (`texts[2·turn + 1]`); the user says `texts[2·turn]`. Every
 * write goes through the real agent node (timeline, routing, memory, compression state).
 */
export function realProcess(options: {
  kind: RealProcessKind;
  saver: BaseCheckpointSaver;
  texts: readonly string[];
  thread: string;
}): RealProcess {
  const { texts } = options;
  let replying = 0;
  const model = textModel(() => texts[replying * 2 + 1] ?? '');
  const counter = createCharCounter();
  const agent = defineAgent({
    id: 'assistant',
    systemPrompt: 'You are a helpful assistant.',
    model,
    window: 6_000,
  });
  const graph =
    options.kind === 'sequential'
      ? createSequentialProcess({ counter, agents: [agent] }).compile({ checkpointer: options.saver })
      : createDynamicProcess({
          counter,
          blackboard: createCompressionBlackboard(),
          agents: [agent],
          router: ({ hops }) => (hops === 0 ? { agentId: 'assistant' } : undefined),
          agentNode: () => ({
            sources: compressionSources,
            compact: createCompressionCompactStage({ counter }),
          }),
        }).compile({ checkpointer: options.saver });
  const config = { configurable: { thread_id: options.thread } };
  return {
    async turn(index) {
      replying = index;
      await submitInput({
        graph,
        config,
        input: { inputId: `in-${index}`, content: texts[index * 2] ?? '' },
        session: { namespace: 'bench', sessionId: options.thread },
      });
    },
    async load() {
      const state = await graph.getState(config);
      return ((state.values as { messages?: unknown[] }).messages ?? []).length;
    },
  };
}
