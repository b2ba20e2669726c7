import type { CallRecord } from '../core/call-record.ts';
import { diffReports } from '../core/diff-reports.ts';
import { type CompileReport, droppedCount } from '../core/report.ts';

/** A span attribute value, as OpenTelemetry accepts it. */
export type SpanAttributeValue = string | number | boolean | string[] | number[];

/** Span attributes by name. */
export type SpanAttributes = Record<string, SpanAttributeValue>;

/** What a model call's span describes before the call: the logged call and where it goes. */
export interface CallSpanInput {
  /** The logged call (id, turn, step, report). */
  call: CallRecord;
  sessionId: string;
  /** The provider as the AI SDK names it (`openai.chat`, `anthropic.messages`, `ctxloom`). */
  provider: string;
  /** The model id sent to the provider (`gpt-4o`, `offline`). */
  modelId: string;
  /** The report of the call sent before this one in the session, for the prompt-cache share. */
  previous?: CompileReport;
}

/**
 * The attributes of a model call's span before it is sent: the OpenTelemetry GenAI semantic
 * conventions (`gen_ai.operation.name`, `gen_ai.provider.name`, `gen_ai.request.model`,
 * `gen_ai.request.max_tokens`, `gen_ai.conversation.id`) and ctxloom's compile report — tokens
 * per layer, tool definitions, overhead, budget, window, blocks dropped and trimmed, compaction,
 * the prefix a prompt cache could serve and its share, the call id. Every name is listed in
 * `docs/telemetry.md`. Pure.
 */
export function callSpanAttributes(input: CallSpanInput): SpanAttributes {
  const { report } = input.call;
  const attributes: SpanAttributes = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': providerName(input.provider),
    'gen_ai.request.model': input.modelId,
    'gen_ai.request.max_tokens': report.outputReserve,
    'gen_ai.conversation.id': input.sessionId,
    'ctxloom.call.id': input.call.id,
    'ctxloom.call.step': input.call.step,
    'ctxloom.turn.id': input.call.turnId,
    'ctxloom.model': input.call.model,
    'ctxloom.tokens.total': report.totalTokens,
    'ctxloom.tokens.budget': report.inputBudget,
    'ctxloom.tokens.window': report.window,
    'ctxloom.tokens.overhead': report.overheadTokens,
    'ctxloom.tokens.tools': report.tools?.tokens ?? 0,
    'ctxloom.tools.names': report.tools?.names ?? [],
    'ctxloom.fits': report.fits,
    'ctxloom.counter': report.counter,
    'ctxloom.layers': report.layers.map((layer) => layer.layer),
  };
  let dropped = 0;
  for (const layer of report.layers) {
    attributes[`ctxloom.layer.${layer.layer}.tokens`] = layer.tokens;
    dropped += droppedCount(layer);
  }
  attributes['ctxloom.cuts.dropped'] = dropped;
  attributes['ctxloom.cuts.trimmed'] = report.compaction.filter((action) => action.type === 'trimmed').length;
  attributes['ctxloom.cuts.actions'] = [...new Set(report.compaction.map((action) => action.type))];
  if (input.previous?.messages !== undefined && report.messages !== undefined) {
    const { cache } = diffReports(input.previous, report);
    attributes['ctxloom.cache.prefix_tokens'] = cache.cachedTokens;
    attributes['ctxloom.cache.share'] =
      report.totalTokens === 0 ? 0 : round(cache.cachedTokens / report.totalTokens);
  }
  return attributes;
}

/** What the provider reported when the call ended (the AI SDK's step result, in part). */
export interface CallOutcome {
  usage: {
    inputTokens: number | undefined;
    outputTokens: number | undefined;
    inputTokenDetails?: { cacheReadTokens: number | undefined; cacheWriteTokens: number | undefined };
  };
  finishReason: string;
  response?: { id?: string; modelId?: string };
}

/**
 * The attributes of a model call's span when it ends: `gen_ai.usage.input_tokens`,
 * `gen_ai.usage.output_tokens`, the cache read/creation input tokens, the response id, model
 * and finish reasons, and the share of the input the provider served from its cache
 * (`ctxloom.cache.read_share`). Usage a provider did not report is left out, never guessed.
 * Pure.
 */
export function callOutcomeAttributes(outcome: CallOutcome): SpanAttributes {
  const { usage } = outcome;
  const attributes: SpanAttributes = { 'gen_ai.response.finish_reasons': [outcome.finishReason] };
  const set = (name: string, value: number | string | undefined) => {
    if (value !== undefined && value !== '') attributes[name] = value;
  };
  set('gen_ai.usage.input_tokens', usage.inputTokens);
  set('gen_ai.usage.output_tokens', usage.outputTokens);
  set('gen_ai.usage.cache_read.input_tokens', usage.inputTokenDetails?.cacheReadTokens);
  set('gen_ai.usage.cache_creation.input_tokens', usage.inputTokenDetails?.cacheWriteTokens);
  set('gen_ai.response.id', outcome.response?.id);
  set('gen_ai.response.model', outcome.response?.modelId);
  const read = usage.inputTokenDetails?.cacheReadTokens;
  if (read !== undefined && usage.inputTokens !== undefined && usage.inputTokens > 0)
    attributes['ctxloom.cache.read_share'] = round(read / usage.inputTokens);
  return attributes;
}

/** `openai.chat` → `openai`: the semantic conventions' provider names are the vendor's. */
function providerName(provider: string): string {
  return provider.split('.')[0] || provider;
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
