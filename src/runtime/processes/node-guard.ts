import type { RunnableConfig } from '@langchain/core/runnables';
import { isCommand, Overwrite } from '@langchain/langgraph';
import { CtxloomError } from '../../core/errors.ts';
import { Blackboard, type BlackboardDefinition } from '../../state/index.ts';

/** Delta channels of the Blackboard: never overwritten by a node (except `mapreduce.initPlan`'s `Overwrite([])`). */
const APPEND_ONLY = new Set(['messages', 'processed_inputs', 'timeline']);
/** Arrays of the input state a node must not change in place (the checkpoint would never see it). */
const WATCHED = ['messages', 'mapreduce_results'] as const;

/** Options of {@link guardNode}. */
export interface GuardNodeOptions<S, R> {
  /** The node's name, for the errors (LangGraph does not tell a node its own name). */
  name: string;
  /** The node: a plain LangGraph node function over the Blackboard's state. */
  node: (state: S, config?: RunnableConfig) => R | Promise<R>;
  /** The Blackboard of the graph (its field names). Default {@link Blackboard}. */
  blackboard?: Pick<BlackboardDefinition, 'keys'>;
  /** The field names an update may use, if not a Blackboard's. Default `blackboard.keys`. */
  keys?: ReadonlySet<string>;
}

/**
 * Wraps a node so seed 002's rules for the Blackboard hold at run time, not only by review.
 * Every node of ctxloom's processes is wrapped; wrap the nodes of your own `StateGraph` over
 * the Blackboard the same way (LangGraph itself ignores an unknown key and applies an
 * `Overwrite` of `messages`):
 * - the node's input state is frozen outside production (`NODE_ENV !== 'production'`): the
 *   state object and its arrays, so `state.messages.push(…)` or an assignment to a state field throws at the
 *   line that does it; in every mode the arrays of `messages` and `mapreduce_results` are
 *   checked after the node (length and ends), so an in-place change is an error, never a
 *   change visible in the run and absent from the checkpoint;
 * - the returned update (a plain object or a `Command`'s `update`) may only name fields of
 *   the Blackboard (`unknown-state-key`), and may not `Overwrite` `messages`,
 *   `processed_inputs` or `timeline`, nor `mapreduce_results` with anything but `[]`
 *   (`reducer-violation`).
 *
 * Guards check one node's work; they do not make two writers safe: `graph.invoke` on one
 * thread from two processes can fork it (only `submitInput` takes the thread's lease).
 *
 * @example
 * const graph = new StateGraph(Blackboard.schema)
 *   .addNode('agent', guardNode({ name: 'agent', node: (state: BlackboardState) => {
 *     const sb = new StateBuilder(state);
 *     sb.messages.append([new AIMessage('hi')]);
 *     return sb.patch();
 *   } }))
 *   .addEdge(START, 'agent')
 *   .compile({ checkpointer: new SqliteSaver({ path: 'state.db' }) });
 */
export function guardNode<S extends object = Record<string, unknown>, R = unknown>(
  options: GuardNodeOptions<S, R>,
): (state: S, config?: RunnableConfig) => Promise<R> {
  const { name, node } = options;
  const keys = options.keys ?? (options.blackboard ?? Blackboard).keys;
  const freeze = process.env.NODE_ENV !== 'production';
  return async (input: S, config?: RunnableConfig): Promise<R> => {
    const state = input as Record<string, unknown>;
    const before = WATCHED.map((key) => fingerprint(state[key]));
    let result: R;
    try {
      result = await node((freeze ? frozen(state) : state) as S, config);
    } catch (error) {
      if (
        freeze &&
        error instanceof TypeError &&
        /read[- ]only|not extensible|frozen|Cannot (assign|add|delete|define)/i.test(error.message)
      ) {
        throw new CtxloomError({
          code: 'reducer-violation',
          message: `node ${name} changed its input state in place (${error.message}); write through the StateBuilder and return the patch`,
          path: name,
          cause: error,
        });
      }
      throw error;
    }
    WATCHED.forEach((key, index) => {
      if (!sameFingerprint(fingerprint(state[key]), before[index])) {
        throw new CtxloomError({
          code: 'reducer-violation',
          message: `node ${name} changed state.${key} in place; the checkpoint would never see it — append through the StateBuilder`,
          path: key,
        });
      }
    });
    validateUpdate(name, result, keys);
    return result;
  };
}

function validateUpdate(name: string, result: unknown, keys: ReadonlySet<string>): void {
  const update = isCommand(result) ? (result as { update?: unknown }).update : result;
  if (update === null || update === undefined || typeof update !== 'object' || Array.isArray(update)) return;
  for (const [key, value] of Object.entries(update)) {
    if (!keys.has(key)) {
      throw new CtxloomError({
        code: 'unknown-state-key',
        message: `node ${name} returned an update with key ${key}, which the Blackboard does not have`,
        path: key,
      });
    }
    if (!(value instanceof Overwrite)) continue;
    const empty = Array.isArray(value.value) && value.value.length === 0;
    if (APPEND_ONLY.has(key) || (key === 'mapreduce_results' && !empty)) {
      throw new CtxloomError({
        code: 'reducer-violation',
        message: `node ${name} returned Overwrite for ${key}; it bypasses the reducer — use the module's append/replace`,
        path: key,
      });
    }
  }
}

/** Length and end items of an array: an in-place push, pop, splice or assignment at either end changes it. */
function fingerprint(value: unknown): readonly unknown[] {
  if (!Array.isArray(value)) return [value];
  return [value.length, value[0], value[value.length - 1]];
}

function sameFingerprint(a: readonly unknown[], b: readonly unknown[] | undefined): boolean {
  return b !== undefined && a.length === b.length && a.every((item, index) => item === b[index]);
}

function frozen(state: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(state)) {
    copy[key] = Array.isArray(value) ? Object.freeze([...value]) : value;
  }
  return Object.freeze(copy);
}
