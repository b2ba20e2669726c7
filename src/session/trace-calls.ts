import type { CallRecord } from '../core/call-record.ts';
import type { CompileReport } from '../core/report.ts';
import { requirePeer } from '../llm/require-peer.ts';
import {
  type CallOutcome,
  callOutcomeAttributes,
  callSpanAttributes,
  type SpanAttributes,
} from './call-span-attributes.ts';

/** The part of an OpenTelemetry `Span` ctxloom uses (an `@opentelemetry/api` span is one). */
export interface CallSpan {
  setAttributes(attributes: SpanAttributes): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  recordException(exception: Error | string): unknown;
  end(): void;
}

/**
 * The part of an OpenTelemetry `Tracer` ctxloom uses: `trace.getTracer('my-app')` of
 * `@opentelemetry/api` is one, so ctxloom needs no OpenTelemetry package of its own.
 */
export interface CallTracer {
  startSpan(name: string, options?: { kind?: number; attributes?: SpanAttributes }): CallSpan;
}

/** OpenTelemetry's `SpanKind.CLIENT`: a call to a remote service. */
const SPAN_KIND_CLIENT = 2;
/** OpenTelemetry's `SpanStatusCode.ERROR`. */
const STATUS_ERROR = 2;

/**
 * The global tracer of `@opentelemetry/api` (the optional peer), named `ctxloom`, when the
 * package is installed; `undefined` when it is not. Without a registered tracer provider it is
 * OpenTelemetry's no-op tracer: nothing is recorded, nearly nothing is spent.
 */
export function globalCallTracer(): CallTracer | undefined {
  try {
    const api = requirePeer<{ trace: { getTracer(name: string): CallTracer } }>({
      name: '@opentelemetry/api',
      feature: 'tracing',
    });
    return api.trace.getTracer('ctxloom');
  } catch {
    return undefined;
  }
}

/** Options of {@link traceCalls}. */
export interface TraceCallsOptions {
  tracer: CallTracer;
  sessionId: string;
  /** The provider as the AI SDK names it (`openai.chat`). */
  provider: string;
  /** The model id sent to the provider. */
  modelId: string;
  /** The report of the session's call before this turn, for the first call's cache share. */
  previous?: CompileReport;
}

/** The spans of one turn's model calls: one open at a time, in step order. */
export interface CallSpans {
  /** Opens the span of a logged call (ends one still open first). */
  start(call: CallRecord): void;
  /** Records what the provider reported and ends the open span (kept open for {@link CallSpans.fail} when it ended in an error). */
  end(outcome: CallOutcome): void;
  /** Ends the open span as failed (`ERROR` status, the exception recorded). */
  fail(error: unknown): void;
  /** Ends the open span as it is (an aborted call): nothing is left open. */
  close(): void;
}

/**
 * One OpenTelemetry span per model call of a turn, named `chat {model}` (kind `CLIENT`), with
 * the GenAI semantic-convention attributes and the call's compile report
 * ({@link callSpanAttributes}), then the provider's usage when the call ends
 * ({@link callOutcomeAttributes}). The spans of a turn are siblings under the caller's active
 * span, if any.
 */
export function traceCalls(options: TraceCallsOptions): CallSpans {
  let open: CallSpan | undefined;
  let previous = options.previous;
  const finish = () => {
    open?.end();
    open = undefined;
  };
  return {
    start(call) {
      finish();
      open = options.tracer.startSpan(`chat ${options.modelId}`, {
        kind: SPAN_KIND_CLIENT,
        attributes: callSpanAttributes({
          call,
          sessionId: options.sessionId,
          provider: options.provider,
          modelId: options.modelId,
          ...(previous === undefined ? {} : { previous }),
        }),
      });
      previous = call.report;
    },
    end(outcome) {
      open?.setAttributes(callOutcomeAttributes(outcome));
      // A step that ended in an error stays open for `fail`, which marks it with the turn's error.
      if (outcome.finishReason !== 'error') finish();
    },
    fail(error) {
      if (open === undefined) return;
      const message = error instanceof Error ? error.message : String(error);
      open.recordException(error instanceof Error ? error : message);
      open.setStatus({ code: STATUS_ERROR, message });
      open.setAttributes({ 'error.type': errorType(error) });
      finish();
    },
    close: finish,
  };
}

function errorType(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.name : 'error';
}
