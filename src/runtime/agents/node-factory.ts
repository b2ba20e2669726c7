import { type BaseMessage, ToolMessage } from '@langchain/core/messages';
import type { LanguageModel } from 'ai';
import { createCallLogWriter } from '../../core/call-log-writer.ts';
import type { CallRecord } from '../../core/call-record.ts';
import type { CompiledContext } from '../../core/compile-types.ts';
import { CtxloomError } from '../../core/errors.ts';
import type { ContextSource } from '../../core/source.ts';
import type { TokenCounter } from '../../core/tokens.ts';
import {
  type BlackboardDefinition,
  type FailureKind,
  newLocalId,
  StateBuilder,
  type StatePatch,
} from '../../state/index.ts';
import type { AgentDefinition } from './define-agent.ts';
import type { ProcessRule } from './process-rules.ts';
import { type AgentRunResult, type CompactStage, runAgent } from './run-agent.ts';
import { parseTodoPayload, TODO_TOOL_NAME } from './todo-tool.ts';

/**
 * The Blackboard extension field of a session thread's call log (a bounded delta channel;
 * `ctxloom/session`'s checkpoint store adds it). When a process's Blackboard has it, every
 * agent node logs each model call it sends there — one record per tool-loop step — so
 * `ctxloom calls` and the notebook show a process's calls like a chat turn's.
 */
export const CALL_LOG_KEY = 'session_calls';

/** Shared options of the node factory and the processes. */
export interface NodeFactoryOptions {
  counter: TokenCounter;
  blackboard?: Pick<BlackboardDefinition, 'keys' | 'extensionKeys'>;
  /** Epoch-millisecond clock for timeline entries. Default `Date.now`. */
  now?: () => number;
}

/** What a node built by {@link createAgentNode} does around the agent call. */
export interface AgentNodeOptions extends NodeFactoryOptions {
  agent: AgentDefinition;
  rule: ProcessRule;
  /** Runtime-only query for this call (from the state via the builder); default the last user message. */
  query?: (sb: StateBuilder) => string | undefined;
  framework?: string;
  /** Extra domain writes after a successful call (e.g. a worker's `mapreduce.appendResult`). */
  onResult?: (sb: StateBuilder, result: AgentRunResult) => void;
  /** Whether the agent's messages persist in `messages`. Default true (workers: false). */
  persistMessages?: boolean;
  /** Sources built from this call's state (e.g. requirement TODO and artifact views). Default none. */
  sources?: (sb: StateBuilder) => readonly ContextSource[];
  /** The compact stage before the model call (see {@link CompactStage}). Default: compile once. */
  compact?: CompactStage;
}

/**
 * Builds an agent node. The node only coordinates domain actions, all through one
 * StateBuilder and one patch: persist the agent's delta messages (`messages.append`), apply a
 * TODO payload returned by the TODO tool (`todo.replace`), record the deliverable,
 * `routing.finishAgent`, and the timeline. A failed model call is recorded as data
 * (`last_agent_status: 'failed'`), not thrown, so the process decides what follows.
 */
export function createAgentNode(
  options: AgentNodeOptions,
): (state: Record<string, unknown>) => Promise<StatePatch> {
  return async (state) => {
    const sb = new StateBuilder(state, builderOptions(options));
    const query = options.query?.(sb);
    const { agent } = options;
    const calls = callLogger(options, sb);
    try {
      const result = await runAgent({
        agent,
        sb,
        rule: options.rule,
        counter: options.counter,
        ...(query === undefined ? {} : { query }),
        ...(options.framework === undefined ? {} : { framework: options.framework }),
        ...(options.sources === undefined ? {} : { sources: options.sources(sb) }),
        ...(options.compact === undefined ? {} : { compact: options.compact }),
        ...(calls === undefined ? {} : { onCompile: calls.log }),
        // What the node does not keep as messages is not streamed as messages either.
        stream: options.persistMessages ?? true,
      });
      if (options.persistMessages ?? true) sb.messages.append(result.messages);
      const todo = lastTodoPayload(result.messages);
      if (todo !== undefined) sb.todo.replace(todo);
      if (agent.deliverable) sb.deliverables.recordSaved(agent.id);
      options.onResult?.(sb, result);
      sb.routing.finishAgent({ status: 'completed' });
      sb.timeline.append([{ kind: 'agent-finished', agentId: agent.id, text: result.text.slice(0, 200) }]);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const failureKind: FailureKind = CtxloomError.is(error, 'over-budget')
        ? 'budget'
        : /abort/i.test(message)
          ? 'interrupted'
          : 'model';
      sb.routing.finishAgent({ status: 'failed', failureKind, error: message });
      sb.timeline.append([{ kind: 'agent-failed', agentId: agent.id, text: message.slice(0, 200) }]);
    }
    // Every call that was sent is logged, also when a later step failed.
    if (calls !== undefined && calls.records.length > 0) sb.setExtension(CALL_LOG_KEY, calls.records);
    return sb.patch();
  };
}

/** Collects the node's call records when the Blackboard has a call log, else `undefined`. */
function callLogger(
  options: AgentNodeOptions,
  sb: StateBuilder,
): { records: CallRecord[]; log: (compiled: CompiledContext, step: number) => void } | undefined {
  if (options.blackboard?.extensionKeys.has(CALL_LOG_KEY) !== true) return undefined;
  // The turn is the newest human message (found without converting the whole history).
  const turnId = sb.messages.newestHuman()?.id ?? `agent:${options.agent.id}`;
  const now = options.now ?? Date.now;
  const records: CallRecord[] = [];
  // The session engine's writer; the records reach the call log in the node's one patch.
  const writer = createCallLogWriter({
    turnId,
    model: modelName(options.agent.model),
    agentId: options.agent.id,
    createId: newLocalId,
    now: () => new Date(now()),
    append: (record) => {
      records.push(record);
    },
  });
  return {
    records,
    log: (compiled, step) => {
      void writer.log(compiled, step);
    },
  };
}

function modelName(model: LanguageModel): string {
  if (typeof model === 'string') return model;
  const { provider, modelId } = model as { provider?: string; modelId?: string };
  return provider === undefined ? (modelId ?? 'model') : `${provider}:${modelId ?? ''}`;
}

/** StateBuilder options from the process options. */
export function builderOptions(options: NodeFactoryOptions) {
  return {
    ...(options.blackboard === undefined ? {} : { blackboard: options.blackboard }),
    ...(options.now === undefined ? {} : { now: options.now }),
  };
}

function lastTodoPayload(messages: readonly BaseMessage[]) {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (ToolMessage.isInstance(message) && message.name === TODO_TOOL_NAME) {
      const todo = parseTodoPayload(message.content);
      if (todo !== undefined) return todo;
    }
  }
  return undefined;
}
