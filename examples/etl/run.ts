import { fileURLToPath } from 'node:url';
import {
  createHeuristicRequirementProposer,
  createMemoryCompressionStore,
  createModelRequirementProposer,
  formatThreadId,
} from '../../src/compression/index.ts';
import { resolveModel } from '../../src/llm/index.ts';
import { createModelRouter, resolveRouterConfig } from '../../src/routing/index.ts';
import { createO200kCounter } from '../../src/tokenizers/index.ts';
import { createEtlSession, type EtlSession, type EtlTurn } from './etl-session.ts';
import { createScriptedEtlModel, ETL_SCRIPT } from './scripted-conversation.ts';

/** Options of {@link runEtlExample}. */
export interface RunEtlExampleOptions {
  /** `CTXLOOM_MODEL`-style spec; empty runs the scripted model. */
  modelSpec?: string;
  env?: Record<string, string | undefined>;
  /** The agents' context window in tokens. Default 8000. */
  window?: number;
  /** Called after each turn (the CLI prints it). */
  onTurn?: (turn: EtlTurn) => void;
}

/**
 * Runs {@link ETL_SCRIPT} through an ETL session. Without a model spec the router and agents
 * are the scripted model (deterministic, no keys); with `CTXLOOM_MODEL` a real model routes,
 * extracts requirements and answers as the agents (its decisions then differ from the script).
 */
export async function runEtlExample(
  options: RunEtlExampleOptions = {},
): Promise<{ session: EtlSession; turns: EtlTurn[] }> {
  const env = options.env ?? {};
  const real = options.modelSpec !== undefined && options.modelSpec !== '' && options.modelSpec !== 'offline';
  const model = real ? resolveModel(options.modelSpec, env).model : createScriptedEtlModel();
  let tick = Date.UTC(2026, 0, 1);
  const session = createEtlSession({
    threadId: formatThreadId({ app: 'etl', userId: 'demo', sessionId: 'window-1' }),
    store: createMemoryCompressionStore(),
    router: createModelRouter({ model }),
    proposer: real ? createModelRequirementProposer({ model }) : createHeuristicRequirementProposer(),
    agentModel: model,
    counter: createO200kCounter(),
    window: options.window ?? 8000,
    config: resolveRouterConfig({ app: 'etl', values: env }),
    clock: () => tick++,
  });
  const turns: EtlTurn[] = [];
  for (const { user } of ETL_SCRIPT) {
    const turn = await session.send(user);
    turns.push(turn);
    options.onTurn?.(turn);
  }
  return { session, turns };
}

function describeTurn(turn: EtlTurn): string {
  const outcome = turn.outcome;
  const route =
    outcome.type === 'routed'
      ? `routed → ${outcome.decision.targetAgent} (${outcome.decision.confidence})`
      : outcome.type === 'resume'
        ? `resume ${outcome.request.id} → ${outcome.targetAgent}`
        : outcome.type === 'clarification'
          ? `clarification (${outcome.reason})`
          : `command /compress ${outcome.scope}`;
  const actions = turn.patch.actions.map((action) => `${action.type}:${action.status}`).join(', ');
  const tokens = turn.prepared === undefined ? '' : ` | payload ${turn.prepared.trigger.tokens} tokens`;
  return `> ${turn.userMessage.content}\n  ${route}${actions ? ` [${actions}]` : ''}${tokens}\n  ${turn.reply.split('\n')[0]}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { session } = await runEtlExample({
    modelSpec: process.env.CTXLOOM_MODEL ?? '',
    env: process.env,
    onTurn: (turn) => process.stdout.write(`${describeTurn(turn)}\n`),
  });
  const state = await session.state();
  const counter = createO200kCounter();
  const { todoContextBlocks } = await import('../../src/compression/index.ts');
  process.stdout.write('\n--- todo__context sent to the tester ---\n');
  for (const block of todoContextBlocks(state, { counter, maxTokens: 1500, agentId: 'tester' })) {
    process.stdout.write(`${block.content}\n\n`);
  }
  process.stdout.write(
    `open questions: ${state.requirements.openQuestions.map((q) => `${q.id} ${q.text}`).join(' | ')}\n`,
  );
}
