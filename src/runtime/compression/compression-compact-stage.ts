import { createCompressionSource, prepareWithinBudget } from '../../compression/index.ts';
import type { CompiledContext, CompileRequest } from '../../core/compile-types.ts';
import type { ContextSource } from '../../core/source.ts';
import type { TokenCounter } from '../../core/tokens.ts';
import type { StateBuilder } from '../../state/index.ts';
import type { CompactStage } from '../agents/run-agent.ts';
import { CompressionStateModule } from './compression-state-module.ts';

/** Options of {@link createCompressionCompactStage}. */
export interface CompressionCompactStageOptions {
  /** Counter of the agents' model (the process counter). */
  counter: TokenCounter;
  /** Soft trigger as a fraction of the agent's window. Default 0.7. */
  soft?: number;
  /** Hard trigger as a fraction of the agent's window. Default 0.9. */
  hard?: number;
  /** History messages kept after a soft compression. Default 6, integer ≥ 1. */
  keepAfterSoft?: number;
  /** History messages kept after a hard compression. Default 2, integer ≥ 1. */
  keepAfterHard?: number;
}

/**
 * Seed 004's triggers as the runtime's compact stage, before every agent model call:
 * compile; if the payload reaches the soft or hard limit, compress once — move the session's
 * history cut forward (the requirement TODO and artifact views in `todo__context` carry what
 * the dropped turns said) — and compile again; still at the hard limit → `CtxloomError`
 * `over-budget` (the agent node records it as failure kind `budget`). Never loops. After
 * `/compress` (`forceContextClipping`) every payload is clipped below the soft limit. The cut
 * is persisted through the node's StateBuilder, so later calls start from it; the decision
 * (tokens, trigger, clipped ids) is the latest turn's `compaction` record in
 * `compression_coordination.lastTurn`, and a one-line `compact` timeline entry.
 */
export function createCompressionCompactStage(options: CompressionCompactStageOptions): CompactStage {
  return async ({ agent, sb, request, compile }) => {
    const module = new CompressionStateModule(sb);
    let from = module.historyFrom();
    let compiled: CompiledContext | undefined;
    const prepared = await prepareWithinBudget({
      window: agent.window,
      counter: options.counter,
      ...(options.soft === undefined ? {} : { soft: options.soft }),
      ...(options.hard === undefined ? {} : { hard: options.hard }),
      forceContextClipping: module.snapshot()?.forceContextClipping ?? false,
      build: async () => {
        compiled = await compile(cutHistory(request, from));
        return compiled.messages;
      },
      compress: (level) => {
        const keep = level === 'soft' ? (options.keepAfterSoft ?? 6) : (options.keepAfterHard ?? 2);
        const visible = cutHistory(request, from).history ?? [];
        const first = visible[Math.max(0, visible.length - Math.max(1, keep))];
        if (first === undefined) return;
        from = first.id;
        module.setHistoryFrom(first.id);
      },
    });
    module.recordTurn({
      compaction: {
        agentId: agent.id,
        tokens: prepared.trigger.tokens,
        trigger: prepared.trigger.level,
        compressed: prepared.compressed,
        softLimit: prepared.trigger.softLimit,
        clippedIds: prepared.clippedIds,
      },
    });
    sb.timeline.append([
      { kind: 'compact', agentId: agent.id, text: `${prepared.trigger.tokens} ${prepared.compressed}` },
    ]);
    return { ...(compiled as CompiledContext), messages: prepared.messages };
  };
}

/** The compression views (`todo__context`) of the node's state, for the agent named in the request. */
export function compressionSources(sb: StateBuilder): readonly ContextSource[] {
  const module = new CompressionStateModule(sb);
  return [createCompressionSource({ load: () => module.snapshot() })];
}

/** The request without the history before the cut, with a notice of what was left out. */
function cutHistory(request: CompileRequest, from: string | null): CompileRequest {
  const history = request.history ?? [];
  const start = from === null ? -1 : history.findIndex((message) => message.id === from);
  if (start <= 0) return request;
  const dropped = history.slice(0, start);
  const notice = `${dropped.length} earlier messages are not repeated: what the user asked for is in the requirement TODO, what agents produced is in the artifact index (todo__context).`;
  const summary = request.compression?.summary ? `${request.compression.summary}\n\n${notice}` : notice;
  const through = dropped.at(-1)?.id;
  return {
    ...request,
    history: history.slice(start),
    compression: through === undefined ? { summary } : { summary, throughMessageId: through },
  };
}
