import type { LanguageModelV4 } from '@ai-sdk/provider';
import { defineAgent } from '../runtime/agents/define-agent.ts';
import { processRule } from '../runtime/agents/process-rules.ts';
import { compileAgentCall } from '../runtime/agents/run-agent.ts';
import type { SqliteSaver } from '../runtime/checkpoint/sqlite-saver.ts';
import { type ScriptedModel, textModel } from '../runtime/processes/mock-model.test-support.ts';
import { createSequentialProcess } from '../runtime/processes/sequential.ts';
import { StateBuilder } from '../state/index.ts';
import { createCharCounter } from '../testing/index.ts';
import type { Workspace } from '../workspace/index.ts';
import { createCheckpointSessionStore } from './checkpoint-session-store.ts';
import { createSessionEngine } from './create-session-engine.ts';
import type { SessionProcess } from './session-engine.ts';

/** A session engine whose turns run a process, with its store, model and counter. */
export interface ProcessEngine<M> {
  engine: ReturnType<typeof createSessionEngine>;
  store: ReturnType<typeof createCheckpointSessionStore>;
  model: M;
  counter: ReturnType<typeof createCharCounter>;
}

/** Where a test's process engine runs: the saver, the workspace and a thread suffix of its own. */
export interface ProcessPlace {
  saver: SqliteSaver;
  workspace: Workspace;
  thread: number;
}

/**
 * An engine whose turns run a one-agent sequential process on a checkpoint store's thread;
 * with `preview`, the process previews its agent's next call as the node compiles it.
 */
export function processEngine(
  place: ProcessPlace,
  reply?: (prompt: string, index: number) => string,
  options?: { preview?: boolean; window?: number },
): ProcessEngine<ScriptedModel>;
export function processEngine(place: ProcessPlace, model: LanguageModelV4): ProcessEngine<LanguageModelV4>;
export function processEngine(
  place: ProcessPlace,
  reply: ((prompt: string, index: number) => string) | LanguageModelV4 = () => 'A term is a logical clock.',
  options: { preview?: boolean; window?: number } = {},
): ProcessEngine<LanguageModelV4> {
  const { saver, workspace, thread } = place;
  const counter = createCharCounter();
  const store = createCheckpointSessionStore({ saver, threadIdOf: (id) => `${id}-${thread}` });
  const model = typeof reply === 'function' ? textModel(reply) : reply;
  const agent = defineAgent({
    id: 'helper',
    systemPrompt: 'You help.',
    model,
    window: options.window ?? 8000,
  });
  const graph = createSequentialProcess({ counter, blackboard: store.blackboard, agents: [agent] }).compile({
    checkpointer: saver,
  });
  const preview: SessionProcess['preview'] = async (sessionId, query, manifest) => {
    const view = await graph.getState({ configurable: { thread_id: store.threadIdOf(sessionId) } });
    return compileAgentCall({
      agent,
      sb: new StateBuilder(view.values as Record<string, unknown>, { blackboard: store.blackboard }),
      rule: processRule('agent'),
      counter,
      ...(query === undefined ? {} : { query }),
      ...(manifest === undefined
        ? {}
        : {
            placeholderLocale: manifest.placeholderLocale,
            ...(manifest.layers === undefined ? {} : { sessionLayers: manifest.layers }),
          }),
    });
  };
  let next = 0;
  const engine = createSessionEngine({
    workspace,
    store,
    counter,
    process: { graph, ...(options.preview === true ? { preview } : {}) },
    createId: () => `id-${++next}`,
  });
  return { engine, store, model, counter };
}

/** {@link processEngine} bound to where a test file runs it, read at each call. */
export function processEngineIn(place: () => ProcessPlace) {
  function bound(
    reply?: (prompt: string, index: number) => string,
    options?: { preview?: boolean; window?: number },
  ): ProcessEngine<ScriptedModel>;
  function bound(model: LanguageModelV4): ProcessEngine<LanguageModelV4>;
  function bound(
    reply?: ((prompt: string, index: number) => string) | LanguageModelV4,
    options?: { preview?: boolean; window?: number },
  ): ProcessEngine<LanguageModelV4> {
    return typeof reply === 'function' || reply === undefined
      ? processEngine(place(), reply, options)
      : processEngine(place(), reply);
  }
  return bound;
}
