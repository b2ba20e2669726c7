import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { isThreadId, type RequirementProposer, type ThreadId } from '../../compression/index.ts';
import { createCallLogWriter } from '../../core/call-log-writer.ts';
import type { CallRecord } from '../../core/call-record.ts';
import type { CompiledContext } from '../../core/compile-types.ts';
import { CtxloomError } from '../../core/errors.ts';
import type { TokenCounter } from '../../core/tokens.ts';
import {
  type AgentDescriptor,
  processUserMessage,
  type RouterConfig,
  type SemanticRouter,
} from '../../routing/index.ts';
import { newLocalId } from '../../state/index.ts';
import { CALL_LOG_KEY } from '../agents/node-factory.ts';
import type { RouteDecision, RouterView } from '../processes/dynamic.ts';
import { callDecision, commanderRecord, routeOf } from './commander-decision.ts';
import type { CommanderRecord } from './compression-blackboard.ts';
import { CompressionStateModule } from './compression-state-module.ts';

/** Options of {@link createCommanderRouter}. */
export interface CommanderRouterOptions {
  /** The agents the router may pick (scope + allowed actions); ids must match the process's agents. */
  agents: readonly AgentDescriptor[];
  /** The semantic router (`createModelRouter`) or the offline `createLexicalRouter`. */
  router: SemanticRouter;
  /** Thresholds, e.g. `resolveRouterConfig({ app: 'etl', values: process.env })`. */
  config: RouterConfig;
  /** Counter for the bounded TODO and artifact views the router sees. */
  counter: TokenCounter;
  /** Extracts requirements from an answer to a pending question. Default: the offline heuristic. */
  proposer?: RequirementProposer;
  /** One-line phase summary for the router (`stateSummary`). Default: artifacts present per kind. */
  stateSummary?: (view: RouterView) => string;
  /**
   * Whether the commander judges each agent's work after it ran: the router is asked again
   * (its prompt has a `# Review` section) and a `rework` or a failed `gate` runs an agent
   * again; anything else ends the turn. Bounded by the process's `maxHops`. Default `false`:
   * after an agent the turn ends (one router call per user message).
   */
  review?: boolean;
}

/**
 * Seed 004's control plane as the `router` of the runtime's dynamic process. On a new user
 * message (`hops === 0`): `/compress` turns on clipping; a pending human request routes the
 * answer to the asking agent deterministically (the semantic router is not called);
 * otherwise the semantic router suggests and the commander applies only whitelisted,
 * confident, valid actions — all or nothing. The commander decides the next agent, a
 * clarification, a rework (the named agent redoes an artifact, with the reason as its task)
 * and a gate (a pass ends the turn with a notice; a fail sends the work back to the target
 * agent). The commander's `CommanderPatch` is applied to the Blackboard's compression fields
 * through {@link CompressionStateModule} — the router node's one StateBuilder patch; the
 * decision is kept in the coordination's `lastTurn` and on the router's call record. A
 * clarification, a gate pass or a `/compress` notice is appended as a `commander` message and
 * the turn ends. After an agent ran, the turn ends (a failure is reported to the user) unless
 * `review` is on. The compression thread id is LangGraph's `thread_id`
 * (`<app>:user:{userId}:session:{sessionId}`).
 */
export function createCommanderRouter(
  options: CommanderRouterOptions,
): (view: RouterView) => Promise<RouteDecision> {
  return async (view) => {
    const { sb } = view;
    const human = lastHuman(view.messages);
    if (view.hops > 0) {
      if (view.routing.lastAgentStatus === 'failed') {
        const budget = view.routing.lastAgentFailureKind === 'budget';
        const text = budget
          ? `The request does not fit the model's context even after compression. Please narrow the scope (fewer tables, one job at a time). (${view.routing.lastAgentError ?? ''})`
          : `The ${view.routing.activeAgent ?? 'agent'} failed: ${view.routing.lastAgentError ?? 'unknown error'}`;
        sb.messages.append([commanderMessage(`${human?.id ?? 'turn'}:failure:${view.hops}`, text)]);
        return undefined;
      }
      if (options.review !== true || human === undefined) return undefined;
    } else if (human === undefined || view.messages.at(-1) !== human) {
      return undefined;
    }
    const threadId = view.threadId;
    if (threadId === undefined || !isThreadId(threadId)) {
      throw new CtxloomError({
        code: 'invalid-config',
        message: `the commander needs a thread_id of the form <app>:user:<userId>:session:<sessionId>, got ${threadId ?? 'none'}`,
        path: 'configurable.thread_id',
      });
    }
    const module = new CompressionStateModule(sb);
    const state = module.ensure(threadId as ThreadId);
    const coordination = module.coordination();
    const pendingRequests = coordination.pendingRequests.filter((request) => request.status === 'pending');
    const review = view.hops > 0;
    // The agent asked the user a question: only the user's answer continues the turn.
    if (review && pendingRequests.some((request) => request.kind === 'human')) return undefined;
    const turn = review ? Math.max(0, coordination.userTurns - 1) : module.nextTurn();
    const messageId = human.id ?? `turn:${turn}`;
    const calls = sb.hasExtension(CALL_LOG_KEY)
      ? controlPlaneCalls(options, messageId, view.hops)
      : undefined;
    const processed = await processUserMessage({
      state,
      agents: options.agents,
      userMessage: { id: messageId, role: 'user', content: human.text },
      turn,
      router: options.router,
      config: options.config,
      counter: options.counter,
      coordination: {
        pendingRequests: review ? [] : pendingRequests,
        requestResults: coordination.requestResults,
      },
      stateSummary: options.stateSummary?.(view) ?? summarize(state.artifacts.index.artifacts),
      ...(review ? { review: { agentId: lastRoutedAgent(view), hop: view.hops } } : {}),
      ...(options.proposer === undefined ? {} : { proposer: options.proposer }),
      ...(calls === undefined ? {} : { onCall: calls.log }),
    });
    const { patch, outcome } = processed;
    // The router's and the proposer's model calls, in the session's call log when it has one;
    // the router's carries what the commander decided with its output.
    if (calls !== undefined && calls.records.length > 0) {
      const routerCall = calls.records.findLast((record) => record.agentId === 'router');
      if (routerCall !== undefined) routerCall.decision = callDecision(processed, review);
      sb.setExtension(CALL_LOG_KEY, calls.records);
    }
    module.applyCommanderPatch(patch);
    module.resolveRequests(patch.resolvedRequestIds ?? [], human.text);
    const record = commanderRecord({ messageId, turn, processed, review });
    if (review) {
      module.recordTurn({ reviews: [...(module.coordination().lastTurn?.reviews ?? []), record] });
    } else {
      module.recordTurn({ commander: record });
    }
    sb.timeline.append([
      {
        kind: 'commander',
        text: `${messageId} ${review ? `review ${view.hops} ` : ''}${record.outcome} ${describeNext(record)}`.trim(),
      },
    ]);
    const next = patch.next;
    const route = routeOf(next, review);
    if (route !== undefined) return route;
    const text =
      next.type === 'clarify'
        ? // A review's rejected output is for the call report, not a question to the user.
          review && next.reason !== 'router-asked'
          ? undefined
          : next.question
        : next.type === 'compress'
          ? `Context compression is on (${next.scope}): every later payload of this session is clipped to budget.`
          : next.type === 'gate'
            ? `Gate passed (${next.requirementIds.join(', ')}): ${next.reason}`
            : undefined;
    const suffix = review ? `review:${view.hops}` : outcome.type;
    if (text !== undefined) sb.messages.append([commanderMessage(`${messageId}:${suffix}`, text)]);
    return undefined;
  };
}

/** The agent that ran last (`routing.activeAgent` is cleared when an agent finishes). */
function lastRoutedAgent(view: RouterView): string {
  return view.sb.timeline.snapshot().entries.findLast((entry) => entry.kind === 'route')?.agentId ?? 'agent';
}

function describeNext(record: CommanderRecord): string {
  if (record.next === 'rework' || record.next === 'gate')
    return `${record.next} ${record.target ?? ''}`.trim();
  return record.target ?? (record.reason === null ? '' : `(${record.reason})`);
}

/** Collects the call records of the router's and the proposer's model calls for one message. */
function controlPlaneCalls(options: CommanderRouterOptions, turnId: string, hop: number) {
  const records: CallRecord[] = [];
  const writerOf = (caller: 'router' | 'proposer') =>
    createCallLogWriter({
      turnId,
      model: caller === 'router' ? options.router.name : (options.proposer?.label ?? 'proposer'),
      agentId: caller,
      createId: newLocalId,
      now: () => new Date(),
      append: (record) => {
        records.push(record);
      },
    });
  const writers = { router: writerOf('router'), proposer: writerOf('proposer') };
  return {
    records,
    log: (compiled: CompiledContext, caller: 'router' | 'proposer') => {
      // A review's router call is the turn's router step `hop` (the first is 0). The records
      // reach the call log in the router node's one patch.
      void writers[caller].log(compiled, hop + records.length);
    },
  };
}

function commanderMessage(id: string, text: string): AIMessage {
  return new AIMessage({ id: `commander:${id}`, name: 'commander', content: text });
}

function lastHuman(messages: readonly BaseMessage[]): BaseMessage | undefined {
  return messages.findLast((message) => message.getType() === 'human');
}

function summarize(artifacts: readonly { kind: string; status: string }[]): string {
  const active = new Map<string, number>();
  for (const artifact of artifacts) {
    if (artifact.status === 'active') active.set(artifact.kind, (active.get(artifact.kind) ?? 0) + 1);
  }
  if (active.size === 0) return 'No artifacts yet.';
  return `Active artifacts: ${[...active].map(([kind, count]) => `${kind} ×${count}`).join(', ')}.`;
}
