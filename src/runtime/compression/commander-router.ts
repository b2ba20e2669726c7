import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { isThreadId, type RequirementProposer, type ThreadId } from '../../compression/index.ts';
import { type CallRecord, toCallRecord } from '../../core/call-record.ts';
import type { CompiledContext } from '../../core/compile-types.ts';
import { CtxloomError } from '../../core/errors.ts';
import type { TokenCounter } from '../../core/tokens.ts';
import {
  type AgentDescriptor,
  type CommanderPatch,
  type ProcessedUserMessage,
  processUserMessage,
  type RouterConfig,
  type SemanticRouter,
} from '../../routing/index.ts';
import { newLocalId } from '../../state/index.ts';
import { CALL_LOG_KEY } from '../agents/node-factory.ts';
import type { RouteDecision, RouterView } from '../processes/dynamic.ts';
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
}

/**
 * Seed 004's control plane as the `router` of the runtime's dynamic process. On a new user
 * message (`hops === 0`): `/compress` turns on clipping; a pending human request routes the
 * answer to the asking agent deterministically (the semantic router is not called);
 * otherwise the semantic router suggests and the commander applies only whitelisted,
 * confident, valid actions. The commander's `CommanderPatch` is applied to the Blackboard's
 * compression fields through {@link CompressionStateModule} — the router node's one
 * StateBuilder patch. A clarification or `/compress` notice is appended as a `commander`
 * message and the turn ends; after an agent ran, the turn ends (a budget failure is reported
 * to the user). The compression thread id is LangGraph's `thread_id`
 * (`<app>:user:{userId}:session:{sessionId}`).
 */
export function createCommanderRouter(
  options: CommanderRouterOptions,
): (view: RouterView) => Promise<RouteDecision> {
  return async (view) => {
    const { sb } = view;
    if (view.hops > 0) {
      if (view.routing.lastAgentStatus === 'failed') {
        const budget = view.routing.lastAgentFailureKind === 'budget';
        const text = budget
          ? `The request does not fit the model's context even after compression. Please narrow the scope (fewer tables, one job at a time). (${view.routing.lastAgentError ?? ''})`
          : `The ${view.routing.activeAgent ?? 'agent'} failed: ${view.routing.lastAgentError ?? 'unknown error'}`;
        sb.messages.append([
          commanderMessage(`${lastHuman(view.messages)?.id ?? 'turn'}:failure:${view.hops}`, text),
        ]);
      }
      return undefined;
    }
    const human = lastHuman(view.messages);
    if (human === undefined || view.messages.at(-1) !== human) return undefined;
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
    const turn = module.nextTurn();
    const messageId = human.id ?? `turn:${turn}`;
    const calls = sb.hasExtension(CALL_LOG_KEY) ? controlPlaneCalls(options, messageId) : undefined;
    const processed = await processUserMessage({
      state,
      agents: options.agents,
      userMessage: { id: messageId, role: 'user', content: human.text },
      turn,
      router: options.router,
      config: options.config,
      counter: options.counter,
      coordination: {
        pendingRequests: coordination.pendingRequests.filter((request) => request.status === 'pending'),
        requestResults: coordination.requestResults,
      },
      stateSummary: options.stateSummary?.(view) ?? summarize(state.artifacts.index.artifacts),
      ...(options.proposer === undefined ? {} : { proposer: options.proposer }),
      ...(calls === undefined ? {} : { onCall: calls.log }),
    });
    // The router's and the proposer's model calls, in the session's call log when it has one.
    if (calls !== undefined && calls.records.length > 0) sb.setExtension(CALL_LOG_KEY, calls.records);
    const { patch, outcome } = processed;
    module.applyCommanderPatch(patch);
    module.resolveRequests(patch.resolvedRequestIds ?? [], human.text);
    const record = commanderRecord({ messageId, turn, processed });
    module.recordTurn({ commander: record });
    sb.timeline.append([
      {
        kind: 'commander',
        text: `${messageId} ${record.outcome} ${record.target ?? (record.reason === null ? '' : `(${record.reason})`)}`.trim(),
      },
    ]);
    const next = patch.next;
    if (next.type === 'agent') return { agentId: next.agentId };
    const text =
      next.type === 'clarify'
        ? next.question
        : `Context compression is on (${next.scope}): every later payload of this session is clipped to budget.`;
    sb.messages.append([commanderMessage(`${messageId}:${outcome.type}`, text)]);
    return undefined;
  };
}

function commanderRecord(input: {
  messageId: string;
  turn: number;
  processed: ProcessedUserMessage;
}): CommanderRecord {
  const { outcome, patch } = input.processed;
  return {
    messageId: input.messageId,
    turn: input.turn,
    outcome: outcome.type,
    reason:
      outcome.type === 'clarification'
        ? outcome.reason
        : patch.next.type === 'clarify'
          ? patch.next.reason
          : null,
    target: targetOf(patch),
    confidence: outcome.type === 'routed' ? outcome.decision.confidence : null,
    actions: patch.actions.map((action) => `${action.type}:${action.status}`),
    actionMessages: patch.actions.map((action) => action.message),
    resolvedRequestIds: patch.resolvedRequestIds ?? [],
  };
}

function targetOf(patch: CommanderPatch): string | null {
  return patch.next.type === 'agent' ? patch.next.agentId : null;
}

/** Collects the call records of the router's and the proposer's model calls for one message. */
function controlPlaneCalls(options: CommanderRouterOptions, turnId: string) {
  const records: CallRecord[] = [];
  return {
    records,
    log: (compiled: CompiledContext, caller: 'router' | 'proposer') => {
      records.push(
        toCallRecord({
          compiled,
          id: newLocalId(),
          turnId,
          step: records.length,
          at: new Date(),
          model: caller === 'router' ? options.router.name : (options.proposer?.label ?? 'proposer'),
          agentId: caller,
        }),
      );
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
