import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import type { LanguageModel } from 'ai';
import {
  type RequirementProposer,
  registerArtifact,
  registerToolEvidence,
  summarizeSql,
  type ThreadId,
} from '../../src/compression/index.ts';
import type { CompiledContext, TokenCounter } from '../../src/core/index.ts';
import type { RouterConfig, SemanticRouter } from '../../src/routing/index.ts';
import {
  type AgentDefinition,
  type AgentRunResult,
  type CompiledProcess,
  CompressionStateModule,
  compileAgentCall,
  compressionSources,
  createCommanderRouter,
  createCompressionCompactStage,
  createDynamicProcess,
  defineAgent,
  processRule,
} from '../../src/runtime/index.ts';
import type { CheckpointSessionStore } from '../../src/session/index.ts';
import { StateBuilder } from '../../src/state/index.ts';
import type { PlaceholderLocale, SessionLayers } from '../../src/workspace/index.ts';
import { ETL_AGENTS, type EtlAgent } from './agents.ts';

/** Options of {@link createEtlProcess}. */
export interface EtlProcessOptions {
  /** The model the four agents run on. */
  agentModel: LanguageModel;
  /** The semantic router (`createModelRouter`) or the offline lexical one. */
  router: SemanticRouter;
  /** Extracts requirements from answers to pending questions. */
  proposer: RequirementProposer;
  counter: TokenCounter;
  /** The agents' context window, in tokens. */
  window: number;
  config: RouterConfig;
  checkpointer: BaseCheckpointSaver;
  /** The session thread's Blackboard: the checkpoint session store's (`store.blackboard`). */
  blackboard: CheckpointSessionStore['blackboard'];
  /** Epoch-millisecond clock for the timeline and artifact index. Default `Date.now`. */
  clock?: () => number;
  /**
   * Whether the commander reviews each agent's work (a rework or a failed gate runs an agent
   * again; see `createCommanderRouter`'s `review`). Default `false`.
   */
  review?: boolean;
}

/**
 * The ETL team on the runtime's dynamic process: the commander router (deterministic for
 * pending questions, semantic otherwise, clarification when unsure) picks one of analyst,
 * planner, SQL developer and tester per user message; each agent's model input is compiled
 * from the Blackboard with the requirement TODOs and the artifact index as `todo__context`
 * blocks, through the compression compact stage (soft/hard triggers, `/compress` clipping).
 * An agent's reply becomes a pending question (`QUESTION: …`) or an artifact version.
 */
export function createEtlProcess(options: EtlProcessOptions): {
  graph: CompiledProcess;
  /**
   * The first call `agentId` would send for `query` on the thread's current `values`,
   * compiled as its node compiles it (nothing written).
   */
  preview: (
    values: Record<string, unknown>,
    agentId: string,
    query?: string,
    manifest?: { placeholderLocale: PlaceholderLocale; layers?: SessionLayers },
  ) => Promise<CompiledContext>;
} {
  // The session thread's Blackboard: every agent call is logged in the thread's call log, and
  // agents compile the session's curation, history summary and structured state.
  const { blackboard, counter } = options;
  const clock = options.clock ?? Date.now;
  const compact = createCompressionCompactStage({ counter });
  const agents = ETL_AGENTS.map((agent) =>
    defineAgent({
      id: agent.id,
      systemPrompt: agent.systemPrompt,
      model: options.agentModel,
      window: options.window,
      maxSteps: 1,
    }),
  );
  const graph = createDynamicProcess({
    blackboard,
    counter,
    now: clock,
    agents,
    router: createCommanderRouter({
      agents: ETL_AGENTS,
      router: options.router,
      config: options.config,
      counter: options.counter,
      proposer: options.proposer,
      review: options.review ?? false,
    }),
    agentNode: (agent) => ({
      sources: compressionSources,
      compact,
      onResult: (sb, result) =>
        recordOutput(
          sb,
          ETL_AGENTS.find((candidate) => candidate.id === agent.id) as EtlAgent,
          result,
          clock,
        ),
    }),
  }).compile({ checkpointer: options.checkpointer });
  const rule = processRule('dynamic', { enableShareContext: true });
  return {
    graph,
    async preview(values, agentId, query, manifest) {
      const agent = agents.find((candidate) => candidate.id === agentId) ?? (agents[0] as AgentDefinition);
      const sb = new StateBuilder(values, { blackboard, now: clock });
      return compileAgentCall({
        agent,
        sb,
        rule,
        counter,
        ...(query === undefined ? {} : { query }),
        ...(manifest === undefined ? {} : { placeholderLocale: manifest.placeholderLocale }),
        ...(manifest?.layers === undefined ? {} : { sessionLayers: manifest.layers }),
        sources: compressionSources(sb),
        compact,
      });
    },
  };
}

/**
 * What the node does with an agent's reply, through the same StateBuilder patch: a
 * `QUESTION:` opens a pending human request (answered deterministically next turn); anything
 * else is registered as a new artifact version, SQL with a static-check tool evidence.
 */
function recordOutput(sb: StateBuilder, agent: EtlAgent, result: AgentRunResult, clock: () => number): void {
  const module = new CompressionStateModule(sb);
  const state = module.snapshot();
  if (state === undefined) return;
  const turn = module.coordination().userTurns - 1;
  const reply = result.text;
  if (reply.startsWith('QUESTION:')) {
    module.openRequest({
      id: `r${turn}`,
      kind: 'human',
      status: 'pending',
      createdBy: agent.id,
      question: reply.slice('QUESTION:'.length).trim(),
    });
    return;
  }
  module.update(state.threadId as ThreadId, (current) => {
    const name = /^--\s*job:\s*(\S+)/mu.exec(reply)?.[1] ?? 'etl';
    const registered = registerArtifact(
      current.artifacts,
      { kind: agent.artifactKind, name, agentId: agent.id, content: reply, turnIndex: turn },
      { clock },
    );
    let artifacts = registered.state;
    if (agent.artifactKind === 'sql_job' || agent.artifactKind === 'test') {
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
    return { ...current, artifacts };
  });
}
