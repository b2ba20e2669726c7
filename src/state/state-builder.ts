import { Command } from '@langchain/langgraph';
import { CtxloomError } from '../core/errors.ts';
import { Blackboard, type BlackboardDefinition } from './blackboard.ts';
import { newLocalId } from './message-ids.ts';
import { CompressionModule } from './modules/compression-module.ts';
import { DeliverablesModule } from './modules/deliverables-module.ts';
import { MapReduceModule } from './modules/mapreduce-module.ts';
import { MessagesModule } from './modules/messages-module.ts';
import type { ModuleContext } from './modules/module-context.ts';
import { ReactModule } from './modules/react-module.ts';
import { RoutingModule } from './modules/routing-module.ts';
import { SessionModule } from './modules/session-module.ts';
import { TimelineModule } from './modules/timeline-module.ts';
import { TodoModule } from './modules/todo-module.ts';
import { PatchBuffer, type StatePatch } from './patch-buffer.ts';
import type { BlackboardState } from './types.ts';

/** Options of {@link StateBuilder}. */
export interface StateBuilderOptions {
  /** The Blackboard the graph uses (its keys and extension keys). Default: {@link Blackboard}. */
  blackboard?: Pick<BlackboardDefinition, 'keys' | 'extensionKeys'>;
  /** Epoch-millisecond clock for timeline entries. Default `Date.now`. */
  now?: () => number;
  /** Id factory for messages appended without an id. Default {@link newLocalId} (time-ordered UUIDv7). */
  newId?: () => string;
}

/**
 * The one way a node reads and writes the Blackboard (seed 002). Wrap the node's input
 * state, read through module `snapshot()`s, write through module use-case methods, and
 * return exactly one patch. Reducer rules are enforced as the methods are called.
 *
 * @example
 * ```ts
 * const node = (state: BlackboardState) => {
 *   const sb = new StateBuilder(state);
 *   sb.messages.append([reply]);
 *   sb.routing.finishAgent({ status: 'completed' });
 *   sb.timeline.append([{ kind: 'agent-finished', text: 'writer done' }]);
 *   return sb.command();
 * };
 * ```
 */
export class StateBuilder {
  readonly session: SessionModule;
  readonly routing: RoutingModule;
  readonly messages: MessagesModule;
  readonly deliverables: DeliverablesModule;
  readonly todo: TodoModule;
  readonly compression: CompressionModule;
  readonly react: ReactModule;
  readonly mapreduce: MapReduceModule;
  readonly timeline: TimelineModule;
  readonly #buffer: PatchBuffer;
  readonly #state: Readonly<Record<string, unknown>>;
  readonly #extensionKeys: ReadonlySet<string>;

  constructor(
    state: Readonly<Partial<BlackboardState>> | Readonly<Record<string, unknown>>,
    options: StateBuilderOptions = {},
  ) {
    const blackboard = options.blackboard ?? Blackboard;
    this.#buffer = new PatchBuffer(blackboard.keys);
    this.#state = state as Readonly<Record<string, unknown>>;
    this.#extensionKeys = blackboard.extensionKeys;
    const context: ModuleContext = {
      state: state as ModuleContext['state'],
      buffer: this.#buffer,
      now: options.now ?? Date.now,
      newId: options.newId ?? newLocalId,
    };
    this.session = new SessionModule(context);
    this.routing = new RoutingModule(context);
    this.messages = new MessagesModule(context);
    this.deliverables = new DeliverablesModule(context);
    this.todo = new TodoModule(context);
    this.compression = new CompressionModule(context);
    this.react = new ReactModule(context);
    this.mapreduce = new MapReduceModule(context);
    this.timeline = new TimelineModule(context);
  }

  /** Whether the Blackboard has the application extension field `key`. */
  hasExtension(key: string): boolean {
    return this.#extensionKeys.has(key);
  }

  /** Reads an application extension field (plain read; unknown keys throw `unknown-state-key`). */
  getExtension<T = unknown>(key: string): T | undefined {
    this.#assertExtension(key);
    const pending = this.#buffer.pending(key);
    return (pending === undefined ? this.#state[key] : pending.value) as T | undefined;
  }

  /** Writes an application extension field (overwrite semantics; unknown keys throw). */
  setExtension(key: string, value: unknown): void {
    this.#assertExtension(key);
    this.#buffer.set(key, value);
  }

  /** The node's one patch. Buffered timeline entries are flushed into it. */
  patch(): StatePatch {
    this.timeline.flush();
    return this.#buffer.build();
  }

  /** `new Command({ update: patch(), goto })` — the node's one return value. */
  command(
    options: { goto?: string | string[] | ConstructorParameters<typeof Command>[0]['goto'] } = {},
  ): Command {
    return new Command({
      update: this.patch(),
      ...(options.goto === undefined ? {} : { goto: options.goto }),
    });
  }

  #assertExtension(key: string): void {
    if (this.#extensionKeys.has(key)) return;
    // Blackboard fields go through their modules; only extension keys are free-form.
    const owned = Blackboard.keys.has(key);
    throw new CtxloomError({
      code: owned ? 'invalid-argument' : 'unknown-state-key',
      message: owned
        ? `${key} is a Blackboard field; write it through its module`
        : `state has no field ${key}`,
      path: key,
    });
  }
}
