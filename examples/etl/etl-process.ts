import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import type { LanguageModel } from 'ai';
import {
  type RequirementProposer,
  registerArtifact,
  registerToolEvidence,
  summarizeSql,
  type ThreadId,
} from '../../src/compression/index.ts';
import type { TokenCounter } from '../../src/core/index.ts';
import type { RouterConfig, SemanticRouter } from '../../src/routing/index.ts';
import {
  type AgentRunResult,
  type CompiledProcess,
  CompressionStateModule,
  compressionSources,
  createCommanderRouter,
  createCompressionCompactStage,
  createDynamicProcess,
  defineAgent,
} from '../../src/runtime/index.ts';
import { CALL_LOG_CAPACITY, createSessionBlackboard } from '../../src/session/index.ts';
import type { StateBuilder } from '../../src/state/index.ts';
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
  /** Epoch-millisecond clock for the timeline and artifact index. Default `Date.now`. */
  clock?: () => number;
  /**
   * Blackboard delta-channel snapshot frequency (updates between full snapshots). Lower bounds
   * the replay on every resume (`getTuple`) for long sessions. Default 500 (the Blackboard's).
   */
  snapshotFrequency?: number;
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
  blackboard: ReturnType<typeof createSessionBlackboard>;
} {
  // A session thread's Blackboard: the compression fields plus the session store's, so every
  // agent call is logged in the thread's call log and `ctxloom calls`/the notebook can read it.
  const blackboard = createSessionBlackboard({
    callCapacity: CALL_LOG_CAPACITY,
    ...(options.snapshotFrequency === undefined ? {} : { snapshotFrequency: options.snapshotFrequency }),
  });
  const clock = options.clock ?? Date.now;
  const compact = createCompressionCompactStage({ counter: options.counter });
  const graph = createDynamicProcess({
    blackboard,
    counter: options.counter,
    now: clock,
    agents: ETL_AGENTS.map((agent) =>
      defineAgent({
        id: agent.id,
        systemPrompt: agent.systemPrompt,
        model: options.agentModel,
        window: options.window,
        maxSteps: 1,
      }),
    ),
    router: createCommanderRouter({
      agents: ETL_AGENTS,
      router: options.router,
      config: options.config,
      counter: options.counter,
      proposer: options.proposer,
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
  return { graph, blackboard };
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
