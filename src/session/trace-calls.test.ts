import { createRequire } from 'node:module';
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestNotebook } from '../server/test-workspace.test-support.ts';
import type { SpanAttributes } from './call-span-attributes.ts';
import { createSessionEngine } from './create-session-engine.ts';
import { createFileSessionStore } from './file-session-store.ts';
import type { CallTracer } from './trace-calls.ts';

const SESSION = 'raft-consensus';
let notebook: Awaited<ReturnType<typeof createTestNotebook>>;
beforeEach(async () => {
  notebook = await createTestNotebook();
});
afterEach(async () => {
  await notebook.cleanup();
});

const usage = (input: number, output: number, cacheRead: number) => ({
  inputTokens: { total: input, noCache: input - cacheRead, cacheRead, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 },
});

/** A provider that reads guidance.md with a tool call, then answers: two model calls. */
function toolThenAnswer(fail = false) {
  let step = 0;
  return new MockLanguageModelV4({
    provider: 'openai.chat',
    modelId: 'gpt-4o-mini',
    doStream: async () => {
      const chunks: LanguageModelV4StreamPart[] =
        step++ === 0
          ? [
              { type: 'stream-start', warnings: [] },
              { type: 'response-metadata', id: 'resp-1', modelId: 'gpt-4o-mini-2024-07-18' },
              {
                type: 'tool-call',
                toolCallId: 'c-1',
                toolName: 'read_file',
                input: '{"path":"guidance.md"}',
              },
              {
                type: 'finish',
                finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
                usage: usage(5000, 20, 0),
              },
            ]
          : fail
            ? [
                { type: 'stream-start', warnings: [] },
                { type: 'error', error: new Error('upstream 500') },
              ]
            : [
                { type: 'stream-start', warnings: [] },
                { type: 'response-metadata', id: 'resp-2', modelId: 'gpt-4o-mini-2024-07-18' },
                { type: 'text-start', id: 't' },
                { type: 'text-delta', id: 't', delta: 'Terms are a logical clock.' },
                { type: 'text-end', id: 't' },
                {
                  type: 'finish',
                  finishReason: { unified: 'stop', raw: 'stop' },
                  usage: usage(6000, 8, 4096),
                },
              ];
      return { stream: simulateReadableStream({ chunks }) };
    },
  });
}

interface RecordedSpan {
  name: string;
  kind: number | undefined;
  attributes: SpanAttributes;
  status?: { code: number; message?: string };
  exceptions: unknown[];
  ended: boolean;
}

/** A tracer with the `@opentelemetry/api` shape that keeps what it is given. */
function recordingTracer(): { tracer: CallTracer; spans: RecordedSpan[] } {
  const spans: RecordedSpan[] = [];
  return {
    spans,
    tracer: {
      startSpan(name, options) {
        const span: RecordedSpan = {
          name,
          kind: options?.kind,
          attributes: { ...options?.attributes },
          exceptions: [],
          ended: false,
        };
        spans.push(span);
        return {
          setAttributes: (attributes) => Object.assign(span.attributes, attributes),
          setStatus: (status) => {
            span.status = status;
          },
          recordException: (exception) => span.exceptions.push(exception),
          end: () => {
            span.ended = true;
          },
        };
      },
    },
  };
}

async function runTurn(model: MockLanguageModelV4, tracer: CallTracer | false) {
  let next = 0;
  const engine = createSessionEngine({
    workspace: notebook.workspace,
    store: createFileSessionStore({ workspace: notebook.workspace }),
    model: { model, spec: 'openai:gpt-4o-mini', offline: false },
    tracer,
    createId: () => `t-${++next}`,
    now: () => new Date('2026-03-01T10:00:00.000Z'),
  });
  const turn = await engine.runTurn({ sessionId: SESSION, text: 'What is a term?', messageId: 'u-1' });
  for await (const _chunk of turn.stream);
  await turn.stored;
  return { engine, calls: await engine.listCalls(SESSION) };
}

describe('every model call of a turn as an OpenTelemetry span', () => {
  it('opens one CLIENT span per call with the GenAI attributes, the report and the provider usage', async () => {
    const { tracer, spans } = recordingTracer();
    const { calls } = await runTurn(toolThenAnswer(), tracer);
    const turnCalls = calls.filter((call) => call.turnId === 'u-1');
    expect(turnCalls).toHaveLength(2);
    expect(spans).toHaveLength(2);
    expect(spans.every((span) => span.ended && span.kind === 2 && span.name === 'chat gpt-4o-mini')).toBe(
      true,
    );

    const [first, second] = spans as [RecordedSpan, RecordedSpan];
    const firstCall = turnCalls[0];
    expect(first.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.request.max_tokens': firstCall?.report.outputReserve,
      'gen_ai.conversation.id': SESSION,
      'gen_ai.response.id': 'resp-1',
      'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
      'gen_ai.response.finish_reasons': ['tool-calls'],
      'gen_ai.usage.input_tokens': 5000,
      'gen_ai.usage.output_tokens': 20,
      'ctxloom.call.id': firstCall?.id,
      'ctxloom.call.step': 0,
      'ctxloom.turn.id': 'u-1',
      'ctxloom.tokens.total': firstCall?.report.totalTokens,
      'ctxloom.tokens.budget': firstCall?.report.inputBudget,
      'ctxloom.tokens.tools': firstCall?.report.tools?.tokens,
      'ctxloom.fits': true,
    });
    // Per-layer tokens, exactly the report's.
    for (const layer of firstCall?.report.layers ?? [])
      expect(first.attributes[`ctxloom.layer.${layer.layer}.tokens`]).toBe(layer.tokens);
    expect(first.attributes['ctxloom.layer.history.tokens']).toBeGreaterThan(0);
    expect(first.attributes['ctxloom.cuts.dropped']).toEqual(expect.any(Number));

    expect(second.attributes).toMatchObject({
      'ctxloom.call.id': turnCalls[1]?.id,
      'ctxloom.call.step': 1,
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': 6000,
      'gen_ai.usage.cache_read.input_tokens': 4096,
      'ctxloom.cache.read_share': 0.6827,
    });
    // The second call repeats the first one's prefix: a prompt cache could serve most of it.
    const share = second.attributes['ctxloom.cache.share'] as number;
    expect(share).toBeGreaterThan(0.5);
    expect(share).toBeLessThanOrEqual(1);
    expect(second.attributes['ctxloom.cache.prefix_tokens']).toBeGreaterThan(0);
  });

  it('ends a failed call span with ERROR status and the exception', async () => {
    const { tracer, spans } = recordingTracer();
    await runTurn(toolThenAnswer(true), tracer);
    expect(spans).toHaveLength(2);
    expect(spans.every((span) => span.ended)).toBe(true);
    expect(spans[0]?.status).toBeUndefined();
    expect(spans[1]?.status?.code).toBe(2);
    expect(spans[1]?.attributes['error.type']).toBe('model-error');
    expect(spans[1]?.exceptions).toHaveLength(1);
  });

  it('sends no span with tracer: false', async () => {
    const { calls } = await runTurn(toolThenAnswer(), false);
    expect(calls.filter((call) => call.turnId === 'u-1')).toHaveLength(2);
  });
});

// The OpenTelemetry SDK's own in-memory exporter, when the dev dependencies are installed
// (`@opentelemetry/api`, `@opentelemetry/sdk-trace-base`): the same spans, through the real API.
// Loaded as the engine loads the optional peer (require), so both see one global provider.
const require = createRequire(import.meta.url);
const optional = <T>(name: string): T | undefined => {
  try {
    return require(name) as T;
  } catch {
    return undefined;
  }
};
const sdk = optional<{
  BasicTracerProvider: new (options: { spanProcessors: unknown[] }) => unknown;
  InMemorySpanExporter: new () => {
    getFinishedSpans(): { name: string; kind: number; attributes: SpanAttributes }[];
  };
  SimpleSpanProcessor: new (exporter: unknown) => unknown;
}>('@opentelemetry/sdk-trace-base');
const api = optional<{ trace: { setGlobalTracerProvider(provider: unknown): boolean; disable(): void } }>(
  '@opentelemetry/api',
);

describe.skipIf(sdk === undefined || api === undefined)('with the OpenTelemetry SDK', () => {
  it('exports one span per model call, with the documented attributes, through the global tracer', async () => {
    if (sdk === undefined || api === undefined) return;
    const exporter = new sdk.InMemorySpanExporter();
    const provider = new sdk.BasicTracerProvider({ spanProcessors: [new sdk.SimpleSpanProcessor(exporter)] });
    api.trace.setGlobalTracerProvider(provider);
    try {
      // No tracer option: the engine takes the global one of @opentelemetry/api.
      let next = 0;
      const engine = createSessionEngine({
        workspace: notebook.workspace,
        store: createFileSessionStore({ workspace: notebook.workspace }),
        model: { model: toolThenAnswer(), spec: 'openai:gpt-4o-mini', offline: false },
        createId: () => `s-${++next}`,
      });
      const turn = await engine.runTurn({ sessionId: SESSION, text: 'What is a term?', messageId: 'u-2' });
      for await (const _chunk of turn.stream);
      await turn.stored;
      const spans = exporter.getFinishedSpans();
      expect(spans.map((span) => span.name)).toEqual(['chat gpt-4o-mini', 'chat gpt-4o-mini']);
      expect(spans[0]?.kind).toBe(2);
      expect(spans[1]?.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o-mini',
        'gen_ai.usage.input_tokens': 6000,
        'gen_ai.usage.output_tokens': 8,
        'ctxloom.call.step': 1,
      });
    } finally {
      api.trace.disable();
    }
  });
});
