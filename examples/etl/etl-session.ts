import { type CompressionState, createCompressionState, type ThreadId } from '../../src/compression/index.ts';
import type { Message } from '../../src/core/index.ts';
import type { PendingRequest } from '../../src/routing/index.ts';
import {
  type CommanderRecord,
  type CompactionRecord,
  CompressionStateModule,
  fromLangChain,
  submitInput,
} from '../../src/runtime/index.ts';
import { humanMessageId, StateBuilder, type TimelineEntry } from '../../src/state/index.ts';
import type { createEtlProcess } from './etl-process.ts';

/** What one user message led to, read back from the checkpointed state. */
export interface EtlTurn {
  inputId: string;
  userMessage: Message;
  /** False when the input id had already been processed (nothing ran). */
  accepted: boolean;
  /** The commander's record: outcome, target, confidence, actions. */
  commander: CommanderRecord | undefined;
  /** The agent that answered, if any. */
  agentId?: string;
  /** The agent's reply, the clarification question, or the `/compress` notice. */
  reply: string;
  /** How the agent's payload was prepared (tokens, trigger, clipping). */
  compaction?: CompactionRecord;
  /** The request the agent opened with a `QUESTION:` reply. */
  request?: PendingRequest;
}

/** A running ETL conversation over a checkpointed process. */
export interface EtlSession {
  threadId: ThreadId;
  /** Sends one user message (input id `u<turn>` unless given; a re-sent id is a no-op). */
  send(text: string, options?: { inputId?: string }): Promise<EtlTurn>;
  /** The Blackboard's `messages`, as ctxloom messages. */
  messages(): Promise<Message[]>;
  /** The compression state kept in the Blackboard. */
  state(): Promise<CompressionState>;
  pendingRequests(): Promise<PendingRequest[]>;
  /** The raw checkpointed values (for inspection and tests). */
  values(): Promise<Record<string, unknown>>;
}

/**
 * The ETL session entry: every user message enters through `submitInput` (deterministic
 * HumanMessage id, processed-input ledger) on LangGraph thread `threadId`; everything else —
 * routing, TODOs, artifacts, pending questions, the `/compress` switch — happens in the
 * process and lives in its checkpoints. A new session object on the same checkpointer and
 * thread continues where the last one stopped.
 */
export function createEtlSession(options: {
  process: ReturnType<typeof createEtlProcess>;
  threadId: ThreadId;
}): EtlSession {
  const { graph, blackboard } = options.process;
  const { threadId } = options;
  const [, , userId, , sessionId] = threadId.split(':') as [string, string, string, string, string];
  const config = { configurable: { thread_id: threadId } };
  const values = async () => ((await graph.getState(config)).values ?? {}) as Record<string, unknown>;
  const module = async () => new CompressionStateModule(new StateBuilder(await values(), { blackboard }));
  let before: Record<string, unknown> | undefined;

  return {
    threadId,
    values,
    async messages() {
      return fromLangChain(new StateBuilder(await values(), { blackboard }).memory.snapshot());
    },
    async state() {
      return (await module()).snapshot() ?? createCompressionState({ threadId });
    },
    async pendingRequests() {
      return (await module()).coordination().pendingRequests;
    },
    async send(text, sendOptions = {}) {
      // The state after the previous send is the state before this one: read it once per
      // session object (resume), then reuse it — every getState replays the delta channels.
      before ??= await values();
      const turns = new CompressionStateModule(new StateBuilder(before, { blackboard })).coordination()
        .userTurns;
      const inputId = sendOptions.inputId ?? `u${turns}`;
      const timelineBefore = timelineOf(before).length;
      const result = await submitInput({
        graph: graph as Parameters<typeof submitInput>[0]['graph'],
        config,
        input: { inputId, content: text },
        session: { namespace: `${threadId.split(':')[0]}:user:${userId}`, sessionId },
        blackboard,
      });
      const after = (result.state ?? {}) as Record<string, unknown>;
      before = after;
      return readTurn({
        after,
        text,
        inputId,
        sessionId,
        accepted: result.accepted,
        timelineBefore,
        blackboard,
      });
    },
  };
}

function timelineOf(values: Record<string, unknown>): TimelineEntry[] {
  return ((values.timeline as { entries?: TimelineEntry[] } | undefined)?.entries ?? []) as TimelineEntry[];
}

function readTurn(input: {
  after: Record<string, unknown>;
  text: string;
  inputId: string;
  sessionId: string;
  accepted: boolean;
  timelineBefore: number;
  blackboard: ReturnType<typeof createEtlProcess>['blackboard'];
}): EtlTurn {
  const id = humanMessageId({ sessionId: input.sessionId, inputId: input.inputId });
  const userMessage: Message = { id, role: 'user', content: input.text };
  const turn: EtlTurn = {
    inputId: input.inputId,
    userMessage,
    accepted: input.accepted,
    commander: undefined,
    reply: '',
  };
  if (!input.accepted) return turn;
  const entries = timelineOf(input.after).slice(input.timelineBefore);
  const sb = new StateBuilder(input.after, { blackboard: input.blackboard });
  const lastTurn = new CompressionStateModule(sb).coordination().lastTurn;
  if (lastTurn?.commander?.messageId === id) {
    turn.commander = lastTurn.commander;
    if (lastTurn.compaction !== null) turn.compaction = lastTurn.compaction;
  }
  const messages = fromLangChain(sb.memory.snapshot());
  const index = messages.findIndex((message) => message.id === id);
  const reply = messages.slice(index + 1).findLast((message) => message.role === 'assistant');
  if (reply !== undefined) {
    turn.reply = typeof reply.content === 'string' ? reply.content : JSON.stringify(reply.content);
    if (reply.name !== undefined && reply.name !== 'commander') turn.agentId = reply.name;
  }
  const agent = entries.find((entry) => entry.kind === 'agent-finished');
  if (agent?.agentId !== undefined) turn.agentId = agent.agentId;
  const request = new CompressionStateModule(sb)
    .coordination()
    .pendingRequests.find((candidate) => candidate.id === `r${turn.commander?.turn ?? -1}`);
  if (request !== undefined) turn.request = request;
  return turn;
}
