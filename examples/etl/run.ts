import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LanguageModel } from 'ai';
import {
  createHeuristicRequirementProposer,
  createModelRequirementProposer,
  formatThreadId,
  type RequirementProposer,
  type ThreadId,
  todoContextBlocks,
} from '../../src/compression/index.ts';
import { resolveModel } from '../../src/llm/index.ts';
import { createModelRouter, resolveRouterConfig } from '../../src/routing/index.ts';
import { SqliteSaver } from '../../src/runtime/index.ts';
import { startNotebookServer } from '../../src/server/index.ts';
import { createO200kCounter } from '../../src/tokenizers/index.ts';
import { createEtlSession, type EtlSession, type EtlTurn } from './etl-session.ts';
import { createScriptedEtlModel, ETL_SCRIPT, type ScriptedTurn } from './scripted-conversation.ts';

/** Options of {@link openEtlSession}. */
export interface OpenEtlSessionOptions {
  /** SQLite checkpoint file; reopen the same file to resume the session. */
  path: string;
  /** `CTXLOOM_MODEL`-style spec; empty or `offline` runs the scripted model. */
  modelSpec?: string;
  env?: Record<string, string | undefined>;
  /** The agents' context window in tokens. Default 8000. */
  window?: number;
  /** The script the scripted model plays. Default {@link ETL_SCRIPT}. */
  script?: readonly ScriptedTurn[];
  threadId?: ThreadId;
  /** Whether the commander reviews each agent's work (rework, gate). Default `false`. */
  review?: boolean;
}

/**
 * Opens (or reopens) the ETL session on a SQLite checkpoint file. Without a model spec the
 * router and the agents are the scripted model (deterministic, no keys); with `CTXLOOM_MODEL`
 * a real model routes, extracts requirements and answers as the agents (its decisions then
 * differ from the script).
 */
export async function openEtlSession(options: OpenEtlSessionOptions): Promise<{
  session: EtlSession;
  saver: SqliteSaver;
  /** The scripted model (its `calls`), or `undefined` with a real model. */
  scripted: ReturnType<typeof createScriptedEtlModel> | undefined;
  /** The agents' model and the requirement proposer. */
  model: LanguageModel;
  proposer: RequirementProposer;
}> {
  const env = options.env ?? {};
  const real = options.modelSpec !== undefined && options.modelSpec !== '' && options.modelSpec !== 'offline';
  const scripted = real ? undefined : createScriptedEtlModel(options.script);
  const model = scripted ?? resolveModel(options.modelSpec, env).model;
  let tick = Date.UTC(2026, 0, 1);
  const saver = new SqliteSaver({ path: options.path });
  const proposer = real ? createModelRequirementProposer({ model }) : createHeuristicRequirementProposer();
  const threadId = options.threadId ?? formatThreadId({ app: 'etl', userId: 'demo', sessionId: 'window-1' });
  const session = await createEtlSession({
    saver,
    threadId,
    workspaceRoot: join(dirname(options.path), 'workspace'),
    process: {
      agentModel: model,
      router: createModelRouter({ model }),
      proposer,
      counter: createO200kCounter(),
      window: options.window ?? 8000,
      config: resolveRouterConfig({ app: 'etl', values: env }),
      clock: () => tick++,
      review: options.review ?? false,
    },
  });
  return { session, saver, scripted, model, proposer };
}

/** Sends `script` turn by turn; `onTurn` sees each result. */
export async function playScript(
  session: EtlSession,
  script: readonly ScriptedTurn[],
  onTurn?: (turn: EtlTurn) => void,
): Promise<EtlTurn[]> {
  const turns: EtlTurn[] = [];
  for (const { user } of script) {
    const turn = await session.send(user);
    turns.push(turn);
    onTurn?.(turn);
  }
  return turns;
}

/** One line per turn: route, commander actions, payload tokens, first line of the reply. */
export function describeTurn(turn: EtlTurn): string {
  const commander = turn.commander;
  const route =
    commander === undefined
      ? 'not processed'
      : commander.outcome === 'routed'
        ? commander.target === null
          ? `routed, then asked the user (${commander.reason})`
          : `routed → ${commander.target} (${commander.confidence})`
        : commander.outcome === 'resume'
          ? `resume ${commander.resolvedRequestIds.join(',')} → ${commander.target}`
          : commander.outcome === 'clarification'
            ? `clarification (${commander.reason})`
            : 'command /compress';
  if (turn.compress !== undefined) {
    return `> ${String(turn.userMessage.content)}\n  command ${String(turn.userMessage.content)} (the engine's): context ${turn.compress.tokensBefore} → ${turn.compress.tokensAfter} tokens\n  ${turn.reply.split('\n')[1] ?? ''}`;
  }
  const actions = commander?.actions.join(', ') ?? '';
  const payload =
    turn.compaction === undefined
      ? ''
      : ` | payload ${turn.compaction.tokens} tokens, trigger ${turn.compaction.trigger}${turn.compaction.clippedIds.length > 0 ? `, clipped ${turn.compaction.clippedIds.length}` : ''}`;
  return `> ${String(turn.userMessage.content)}\n  ${route}${actions ? ` [${actions}]` : ''}${payload}\n  ${turn.reply.split('\n')[0]}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = mkdtempSync(join(tmpdir(), 'ctxloom-etl-'));
  const path = join(dir, 'etl.db');
  const write = (text: string) => process.stdout.write(`${text}\n`);
  const spec = process.env.CTXLOOM_MODEL ?? '';
  const half = Math.ceil(ETL_SCRIPT.length / 2);
  write(`checkpoints: ${path}`);
  const first = await openEtlSession({ path, modelSpec: spec, env: process.env });
  await playScript(first.session, ETL_SCRIPT.slice(0, half), (turn) => write(describeTurn(turn)));
  await first.saver.close();
  write(`\n--- process restarted: resuming ${first.session.threadId} from the checkpoint ---\n`);
  const second = await openEtlSession({ path, modelSpec: spec, env: process.env });
  const resent = await second.session.send(ETL_SCRIPT[half - 1]?.user ?? '', { inputId: `u${half - 1}` });
  write(`re-sent u${half - 1}: accepted=${resent.accepted} (the ledger makes it a no-op)`);
  await playScript(second.session, ETL_SCRIPT.slice(half), (turn) => write(describeTurn(turn)));
  const state = await second.session.state();
  write('\n--- todo__context sent to the tester ---');
  for (const block of todoContextBlocks(state, {
    counter: createO200kCounter(),
    maxTokens: 1500,
    agentId: 'tester',
  })) {
    write(`${block.content}\n`);
  }
  write(`open questions: ${state.requirements.openQuestions.map((q) => `${q.id} ${q.text}`).join(' | ')}`);
  if (process.argv.includes('--serve')) {
    // The same session, engine and process in the notebook: preview = the current agent's next call.
    const server = await startNotebookServer({
      workspace: second.session.workspace,
      store: second.session.store,
      process: second.session.process,
      // The notebook's model label: the agents' (scripted unless CTXLOOM_MODEL is set).
      model: { model: second.model, spec: spec === '' ? 'scripted (examples/etl)' : spec, offline: false },
      proposer: second.proposer,
      port: Number(process.env.PORT ?? 4318),
      webRoot: fileURLToPath(new URL('../../dist/web', import.meta.url)),
    });
    write(`\nnotebook on the ETL session: ${server.browserUrl}  (Ctrl-C stops it)`);
    const stop = async () => {
      await server.close();
      await second.saver.close();
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  } else {
    await second.saver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
