import { cp, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { createOfflineModel } from '../../src/llm/index.ts';
import { createFileSessionStore, createSessionEngine } from '../../src/session/index.ts';
import { openWorkspace } from '../../src/workspace/index.ts';

// A copy of the example notebook to write into (run from the repository's root).
const root = await mkdtemp(join(tmpdir(), 'notebook-'));
await cp('examples/notebook', root, { recursive: true });
const workspace = openWorkspace({ root });
const store = createFileSessionStore({ workspace });
const model = { model: createOfflineModel(), spec: 'offline', offline: true }; // or openai('gpt-4o-mini')…

// Your tracer provider; its exporter sends spans to Langfuse, Phoenix, an OTLP collector…
// (here it keeps them in memory).
export const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

// Either pass a tracer…
const engine = createSessionEngine({ workspace, store, model, tracer: provider.getTracer('my-app') });
// …or register a tracer provider (NodeSDK, Langfuse, Phoenix, …): with `@opentelemetry/api`
// installed, an engine without `tracer` uses the global tracer `ctxloom`.

const turn = await engine.runTurn({ sessionId: 'raft-consensus', text: 'What is a term?' });
await turn.stored; // the answer is stored, every call of the turn logged and traced
for (const span of exporter.getFinishedSpans()) {
  console.log(span.name, span.attributes['ctxloom.call.step'], span.attributes['ctxloom.tokens.total']);
}
export const calls = await engine.listCalls('raft-consensus');
