import { createCompressionSource, prepareWithinBudget } from '../../compression/index.ts';
import type { CompiledContext, CompileRequest } from '../../core/compile-types.ts';
import type { HistoryBlockMetadata } from '../../core/history.ts';
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
      build: async ({ maxInputTokens }) => {
        compiled = await compile(
          coverHistory(request, from),
          maxInputTokens === undefined ? {} : { maxInputTokens },
        );
        return {
          messages: compiled.messages,
          clippedIds: maxInputTokens === undefined ? [] : clippedIds(compiled),
        };
      },
      compress: (level) => {
        const keep = level === 'soft' ? (options.keepAfterSoft ?? 6) : (options.keepAfterHard ?? 2);
        const history = request.history ?? [];
        const start =
          from === null
            ? 0
            : Math.max(
                0,
                history.findIndex((message) => message.id === from),
              );
        const visible = history.slice(start);
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
    // The compile is what is sent: its report covers every cut (the clip limit included).
    return compiled as CompiledContext;
  };
}

/** The compression views (`todo__context`) of the node's state, for the agent named in the request. */
export function compressionSources(sb: StateBuilder): readonly ContextSource[] {
  const module = new CompressionStateModule(sb);
  return [createCompressionSource({ load: () => module.snapshot() })];
}

/**
 * The request with the history before the cut marked as covered: the messages stay in the
 * request and core reports them `summarized` into `compression__context`, whose text says
 * where their content went. Nothing is removed outside core's compact stage.
 */
function coverHistory(request: CompileRequest, from: string | null): CompileRequest {
  const history = request.history ?? [];
  const start = from === null ? -1 : history.findIndex((message) => message.id === from);
  if (start <= 0) return request;
  const through = history[start - 1]?.id;
  const notice = `${start} earlier messages are not repeated: what the user asked for is in the requirement TODO, what agents produced is in the artifact index (todo__context).`;
  const summary = request.compression?.summary ? `${request.compression.summary}\n\n${notice}` : notice;
  return {
    ...request,
    compression: through === undefined ? { summary } : { summary, throughMessageId: through },
  };
}

/** Ids of the history messages a `maxInputTokens` limit left out, oldest first. */
function clippedIds(compiled: CompiledContext): string[] {
  return compiled.dropped
    .filter((entry) => entry.block.layer === 'history' && entry.reason.type === 'over-budget')
    .map((entry) => entry.block.metadata as HistoryBlockMetadata)
    .sort((a, b) => a.index - b.index)
    .map((metadata) => metadata.message.id);
}
