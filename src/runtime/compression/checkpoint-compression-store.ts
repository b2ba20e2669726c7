import type { CompressionState, CompressionStore, ThreadId } from '../../compression/index.ts';
import { type BlackboardDefinition, StateBuilder } from '../../state/index.ts';
import type { CompiledProcess } from '../processes/process-graph.ts';
import { CompressionStateModule } from './compression-state-module.ts';

/** Options of {@link createCheckpointCompressionStore}. */
export interface CheckpointCompressionStoreOptions {
  /** A process compiled with a checkpointer, over a Blackboard from `createCompressionBlackboard`. */
  graph: Pick<CompiledProcess, 'getState' | 'updateState'>;
  blackboard: Pick<BlackboardDefinition, 'keys' | 'extensionKeys'>;
  /** Node the write is attributed to (LangGraph `asNode`). Default: LangGraph picks the last node that ran; the tests check the session stays idle. */
  asNode?: string;
}

/**
 * The `CompressionStore` port over a process's checkpoints, for code outside a node (a CLI,
 * an HTTP handler, a migration): the compression thread id is the LangGraph `thread_id`, so
 * sessions are isolated by the checkpointer itself. A save builds its patch with a
 * `StateBuilder` and {@link CompressionStateModule} (revision-checked) and writes it with
 * `graph.updateState`; inside nodes use the module on the node's own StateBuilder instead.
 */
export function createCheckpointCompressionStore(
  options: CheckpointCompressionStoreOptions,
): CompressionStore {
  const config = (threadId: string) => ({ configurable: { thread_id: threadId } });
  const builder = async (threadId: string) => {
    const view = await options.graph.getState(config(threadId));
    return new StateBuilder((view.values ?? {}) as Record<string, unknown>, {
      blackboard: options.blackboard,
    });
  };
  return {
    async load(threadId: ThreadId): Promise<CompressionState | undefined> {
      return new CompressionStateModule(await builder(threadId)).load(threadId);
    },
    async save(state, { expectedRevision }) {
      const sb = await builder(state.threadId);
      const saved = new CompressionStateModule(sb).commit(state, { expectedRevision });
      await options.graph.updateState(config(state.threadId), sb.patch(), options.asNode);
      return structuredClone(saved);
    },
  };
}
