import { generateText, type LanguageModel } from 'ai';
import {
  type CompressionState,
  type CompressionStore,
  createCompressionSource,
  createCompressionState,
  type PreparedMessages,
  prepareWithinBudget,
  type RequirementProposer,
  registerArtifact,
  registerToolEvidence,
  summarizeSql,
  type ThreadId,
} from '../../src/compression/index.ts';
import { compileContext, type Message, type TokenCounter, toAiSdk } from '../../src/core/index.ts';
import {
  applyCommanderPatch,
  type CommanderPatch,
  type PendingRequest,
  type ProcessedUserMessage,
  processUserMessage,
  type RouterConfig,
  type SemanticRouter,
} from '../../src/routing/index.ts';
import { ETL_AGENTS, type EtlAgent } from './agents.ts';

/** Options of {@link createEtlSession}. */
export interface EtlSessionOptions {
  threadId: ThreadId;
  store: CompressionStore;
  router: SemanticRouter;
  /** Extracts requirements from answers to pending questions. */
  proposer: RequirementProposer;
  /** The model the four agents run on. */
  agentModel: LanguageModel;
  counter: TokenCounter;
  /** The agent model's context window, in tokens. */
  window: number;
  config: RouterConfig;
  /** Messages kept verbatim after an automatic compression. Default 6. */
  keepAfterCompression?: number;
  clock?: () => number;
}

/** What one user message led to. */
export interface EtlTurn {
  userMessage: Message;
  outcome: ProcessedUserMessage['outcome'];
  patch: CommanderPatch;
  /** The agent that answered, if any. */
  agentId?: string;
  /** The agent's reply, the clarification question, or the `/compress` notice. */
  reply: string;
  /** Artifact version registered from the reply. */
  artifactId?: string;
  /** Request opened by the agent's `QUESTION:` reply. */
  request?: PendingRequest;
  /** How the agent's payload was prepared (tokens, compression, clipping). */
  prepared?: PreparedMessages;
}

/** A running ETL conversation. */
export interface EtlSession {
  send(text: string): Promise<EtlTurn>;
  /** The conversation so far (the Blackboard's `messages`, kept here until the runtime lands). */
  messages(): readonly Message[];
  pendingRequests(): readonly PendingRequest[];
  state(): Promise<CompressionState>;
}

/**
 * The ETL example's control loop for one session: route each user message (deterministic for
 * pending questions, semantic otherwise), apply the commander's patch, then run the chosen
 * agent on a compiled context whose `todo__context` carries the requirement TODOs and the
 * artifact index, compressing once when the payload nears the window. The runtime's dynamic
 * process will take this loop over; the compression and routing calls stay the same.
 */
export function createEtlSession(options: EtlSessionOptions): EtlSession {
  const history: Message[] = [];
  const requests: PendingRequest[] = [];
  let userTurns = 0;
  let keepFrom = 0;
  const clock = options.clock ?? Date.now;

  const load = async () =>
    (await options.store.load(options.threadId)) ?? createCompressionState({ threadId: options.threadId });
  const save = async (state: CompressionState) =>
    options.store.save(state, {
      expectedRevision: (await options.store.load(options.threadId))?.revision ?? null,
    });

  async function runAgent(agent: EtlAgent, userMessage: Message, state: CompressionState) {
    const source = createCompressionSource({ load: () => state });
    const build = async () => {
      const compiled = await compileContext(
        {
          systemPrompt: agent.systemPrompt,
          history: history.slice(keepFrom, -1),
          query: userMessage,
          metadata: { agentId: agent.id },
        },
        { counter: options.counter, window: options.window, sources: [source] },
      );
      return compiled.messages;
    };
    const prepared = await prepareWithinBudget({
      build,
      // The TODO and artifact views carry what the old turns said, so compression drops them.
      compress: () => {
        keepFrom = Math.max(keepFrom, history.length - 1 - (options.keepAfterCompression ?? 6));
      },
      window: options.window,
      counter: options.counter,
      forceContextClipping: state.forceContextClipping,
    });
    const { text } = await generateText({ model: options.agentModel, ...toAiSdk(prepared.messages) });
    return { prepared, text };
  }

  return {
    messages: () => history,
    pendingRequests: () => requests,
    state: load,
    async send(text) {
      const turn = userTurns++;
      const userMessage: Message = { id: `u${turn}`, role: 'user', content: text };
      history.push(userMessage);
      const state = await load();
      const processed = await processUserMessage({
        state,
        agents: ETL_AGENTS,
        userMessage,
        turn,
        router: options.router,
        config: options.config,
        counter: options.counter,
        proposer: options.proposer,
        coordination: {
          pendingRequests: requests.filter((request) => request.status === 'pending'),
          requestResults: [],
        },
      });
      const next = await save(applyCommanderPatch(state, processed.patch));
      for (const request of requests) {
        if (processed.patch.resolvedRequestIds?.includes(request.id)) request.status = 'answered';
      }
      const result = { userMessage, outcome: processed.outcome, patch: processed.patch };
      const target = processed.patch.next;
      if (target.type !== 'agent') {
        const reply =
          target.type === 'clarify'
            ? target.question
            : `Context compression is on (${target.scope}): every later payload is clipped to budget.`;
        history.push({ id: `a${turn}`, role: 'assistant', name: 'commander', content: reply });
        return { ...result, reply };
      }
      const agent = ETL_AGENTS.find((candidate) => candidate.id === target.agentId) as EtlAgent;
      const { prepared, text: reply } = await runAgent(agent, userMessage, next);
      history.push({ id: `a${turn}`, role: 'assistant', name: agent.id, content: reply });
      if (reply.startsWith('QUESTION:')) {
        const request: PendingRequest = {
          id: `r${requests.length + 1}`,
          kind: 'human',
          status: 'pending',
          createdBy: agent.id,
          question: reply.slice('QUESTION:'.length).trim(),
        };
        requests.push(request);
        return { ...result, agentId: agent.id, reply, request, prepared };
      }
      const name = /^--\s*job:\s*(\S+)/mu.exec(reply)?.[1] ?? 'etl';
      const registered = registerArtifact(
        next.artifacts,
        { kind: agent.artifactKind, name, agentId: agent.id, content: reply, turnIndex: turn },
        { clock },
      );
      let artifacts = registered.state;
      if (agent.artifactKind === 'sql_job' || agent.artifactKind === 'test') {
        // A real, deterministic tool: the static SQL summary, kept as evidence for the job.
        const summary = summarizeSql(reply);
        artifacts = registerToolEvidence(
          artifacts,
          {
            toolName: 'sql_static_check',
            agentId: agent.id,
            input: reply,
            output: { ...summary },
            ok: summary.statements > 0,
            artifactId: registered.entry.id,
            turnIndex: turn,
          },
          { clock },
        ).state;
      }
      await save({ ...next, artifacts });
      return { ...result, agentId: agent.id, reply, artifactId: registered.entry.id, prepared };
    },
  };
}
