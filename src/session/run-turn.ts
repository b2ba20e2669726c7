import { createUIMessageStream, stepCountIs, streamText, type UIMessageChunk } from 'ai';
import { recompileEachStep } from '../ai-sdk/recompile-each-step.ts';
import { createCallLogWriter } from '../core/call-log-writer.ts';
import { type CompactionAction, CtxloomError, type Message } from '../core/index.ts';
import { shorten } from '../core/shorten.ts';
import {
  type MessageContextSummary,
  type NotebookUIMessage,
  type ReportedReference,
  toStoredMessages,
} from '../stream/index.ts';
import type { TurnTools } from './chat-tools.ts';
import type { CompileSessionOptions, PreparedSession, SessionCompile } from './compile-session.ts';
import type { FittedCall } from './fit-session-call.ts';
import { parseSessionCommand } from './session-commands.ts';
import {
  type CompressOutcome,
  DEFAULT_MODEL_TIMEOUT_MS,
  type SessionEngine,
  type SessionEngineOptions,
  type Turn,
  type TurnInput,
} from './session-engine.ts';
import { toModelError } from './to-model-error.ts';
import { type CallSpans, type CallTracer, traceCalls } from './trace-calls.ts';
import { turnErrorRecord } from './turn-error-record.ts';
import { turnMessageId } from './turn-message-id.ts';

interface TurnContext {
  options: SessionEngineOptions;
  engine: SessionEngine;
  /** Loads the session once for the turn's calls, with the tools every call offers. */
  prepare: (
    sessionId: string,
    options: Pick<CompileSessionOptions, 'query' | 'queryId'>,
  ) => Promise<{ prepared: PreparedSession; tools: TurnTools }>;
  /** Compiles a call within the budget, moving the session's cut first when it must (stored: `turnId`). */
  fitCall: (
    sessionId: string,
    options: Pick<CompileSessionOptions, 'query' | 'queryId'>,
    prepared: PreparedSession,
    steps: readonly Message[] | undefined,
    turnId: string | undefined,
    /** The turn's tools: a call compiled again after a move keeps their artifact store. */
    tools?: TurnTools,
  ) => Promise<FittedCall>;
  now: () => Date;
  createId: () => string;
  /** The tracer model calls become spans in (resolved once per engine); none: no spans. */
  tracer: CallTracer | undefined;
}

/** The turn's text, trimmed; `invalid-argument` at `text` when it is not a string. */
export function turnText(input: TurnInput): string {
  const text: unknown = input.text;
  if (typeof text === 'string') return text.trim();
  const kind = text === null ? 'null' : Array.isArray(text) ? 'an array' : typeof text;
  throw new CtxloomError({
    code: 'invalid-argument',
    message: `the message must be a string, got ${kind}`,
    path: 'text',
  });
}

/** The body of {@link SessionEngine.runTurn}: a command, or compile → model steps → persist. */
export async function runTurn(input: TurnInput, context: TurnContext): Promise<Turn> {
  const { engine, now, createId } = context;
  const text = turnText(input);
  if (text === '') {
    throw new CtxloomError({ code: 'invalid-argument', message: 'the message is empty', path: 'text' });
  }
  const userId = turnMessageId(input, createId);
  const command = parseSessionCommand(text);
  if (command !== undefined) return runCommand({ input, context, userId, scope: command.scope, text });

  const model = context.options.model;
  if (model === undefined) {
    throw new CtxloomError({
      code: 'invalid-config',
      message: 'this session engine has no model: pass `model` to createSessionEngine to run turns',
      path: 'model',
    });
  }
  const timeoutMs = modelTimeoutOf(context.options);
  const compileOptions = { query: text, queryId: userId };
  const loaded = await context.prepare(input.sessionId, compileOptions);
  const { tools } = loaded;
  if (loaded.prepared.state.messages.some((message) => message.id === userId)) {
    throw new CtxloomError({
      code: 'conflict',
      message: `message id ${JSON.stringify(shorten(userId))} is already stored`,
      path: shorten(userId),
    });
  }
  // The cut moves (stored) before the call when the session outgrew its budget (decision 040).
  const fitted = await context.fitCall(
    input.sessionId,
    compileOptions,
    loaded.prepared,
    undefined,
    userId,
    loaded.tools,
  );
  let prepared = fitted.prepared;
  const compiled = fitted.compiled;
  const userMessage: Message = {
    id: userId,
    role: 'user',
    content: text,
    metadata: { ...compiled.queryMessage?.metadata, createdAt: now().toISOString() },
  };
  await engine.store.appendMessages(input.sessionId, [userMessage]);
  // Every model call of the turn is logged before it is sent: step 0 here, later steps in prepareStep.
  const calls = createCallLogWriter({
    turnId: userId,
    model: model.spec,
    createId,
    now,
    append: (record) => engine.store.appendCall(input.sessionId, record),
  });
  const logCall = (stepCompile: SessionCompile, step: number) => calls.log(stepCompile, step);
  const spans = await openCallSpans(context, input.sessionId, model);
  const call = await logCall(compiled, 0);
  const callIds = [call.id];

  const references = reportedReferences(compiled);
  const compacted = compactedMessages(compiled.report.compaction);
  const summary: MessageContextSummary = {
    totalTokens: compiled.report.totalTokens,
    inputBudget: compiled.report.inputBudget,
    references,
    callId: call.id,
    ...(compacted === 0 ? {} : { compacted }),
  };
  const assistantId = createId();
  const stored = deferred<Message[]>();
  // A reader that goes away (disconnect, cancel) aborts the model; the turn still stores what arrived.
  // One that left before the turn started (while it waited for the session) aborts it at once.
  const abort = new AbortController();
  if (input.signal?.aborted === true) abort.abort(input.signal.reason);
  else input.signal?.addEventListener('abort', () => abort.abort(input.signal?.reason), { once: true });
  const inner = createUIMessageStream<NotebookUIMessage>({
    generateId: createId,
    execute: async ({ writer }) => {
      writer.write({ type: 'start', messageId: assistantId });
      writer.write({
        type: 'data-context-report',
        id: `report-${assistantId}`,
        data: {
          report: compiled.report,
          warnings: compiled.warnings,
          references,
          model: { spec: model.spec, offline: model.offline },
          callId: call.id,
        },
      });
      let providerError: unknown;
      // A provider silent for `modelTimeoutMs` (no headers, or a stalled stream) is stopped.
      const silence = new AbortController();
      let silent: ReturnType<typeof setTimeout> | undefined;
      const listen = () => {
        clearTimeout(silent);
        silent = setTimeout(() => silence.abort(), timeoutMs);
      };
      listen();
      spans?.start(call);
      const result = streamText({
        model: model.model,
        instructions: compiled.aiSdk.instructions,
        messages: compiled.aiSdk.messages,
        ...(tools.definitions.length === 0 ? {} : { tools: tools.set }),
        stopWhen: stepCountIs(Math.min(50, Math.max(1, context.options.maxSteps ?? 5))),
        maxOutputTokens: compiled.report.outputReserve,
        // Each later step of the tool loop is compiled again, under the same budget, and logged.
        prepareStep: recompileEachStep(async (steps, stepNumber) => {
          // A step that no longer fits moves the cut forward (stored), never back.
          const step = await context.fitCall(
            input.sessionId,
            compileOptions,
            prepared,
            steps,
            userId,
            loaded.tools,
          );
          prepared = step.prepared;
          const next = step.compiled;
          const record = await logCall(next, stepNumber);
          callIds.push(record.id);
          spans?.start(record);
          return next.compiled;
        }),
        abortSignal: AbortSignal.any([abort.signal, silence.signal]),
        onStepEnd: (step) => {
          spans?.end({
            usage: step.usage,
            finishReason: step.finishReason,
            response: { id: step.response.id, modelId: step.response.modelId },
          });
        },
        // Replaces the SDK's default `console.error` of the whole error object: the failure is typed below.
        onError: ({ error }) => {
          providerError ??= error;
        },
      });
      let response: NotebookUIMessage | undefined;
      let aborted = false;
      let failed = false;
      const parts = result.toUIMessageStream<NotebookUIMessage>({
        sendStart: false,
        sendFinish: false,
        onFinish: ({ responseMessage, isAborted }) => {
          // Without a `start` chunk of its own the SDK leaves the id empty: it is the turn's.
          response = { ...responseMessage, id: responseMessage.id || assistantId };
          aborted = isAborted;
        },
        onError: (error) => {
          providerError ??= error;
          return toModelError({ error, spec: model.spec }).message;
        },
      });
      try {
        for await (const chunk of parts) {
          listen();
          if (chunk.type === 'error') failed = true;
          writer.write(chunk);
        }
      } finally {
        clearTimeout(silent);
      }
      const timedOut = silence.signal.aborted && !abort.signal.aborted;
      const failure =
        timedOut || failed
          ? toModelError({
              error: providerError,
              spec: model.spec,
              ...(timedOut ? { timeoutMs } : {}),
            })
          : undefined;
      if (timedOut && !failed && failure !== undefined)
        writer.write({ type: 'error', errorText: failure.message });
      if (failure !== undefined) spans?.fail(failure);
      spans?.close();
      // Persist, then finish: a client that saw `finish` can rely on the answer being stored.
      const partial = aborted || failed || abort.signal.aborted;
      const createdAt = now().toISOString();
      const turnContext = { ...summary, callIds };
      let answer = toStoredMessages(response ?? { id: assistantId, role: 'assistant', parts: [] }, {
        createdAt,
        partial,
        metadata: { context: turnContext },
      });
      if (failure !== undefined) {
        // The failure is a record of the turn, not a model message: nothing of it is sent again.
        answer.push(
          turnErrorRecord({
            id: answer.length === 0 ? assistantId : `${assistantId}.${answer.length}`,
            uiMessageId: assistantId,
            turnId: userId,
            error: failure,
            createdAt,
            ...(answer.length === 0 ? { metadata: { context: turnContext } } : {}),
          }),
        );
        context.options.onModelError?.({ sessionId: input.sessionId, turnId: userId, error: failure });
      } else if (answer.length === 0 && partial) {
        answer = [
          {
            id: assistantId,
            role: 'assistant',
            content: '',
            metadata: { createdAt, partial: true, uiMessageId: assistantId, context: turnContext },
          },
        ];
      }
      await engine.store.appendMessages(input.sessionId, answer);
      stored.resolve(answer);
      writer.write({ type: 'finish' });
    },
    onError: (error) => {
      stored.reject(error);
      return error instanceof Error ? error.message : 'the turn failed';
    },
  });
  const reader = inner.getReader();
  const stream = new ReadableStream<UIMessageChunk>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel(reason) {
      abort.abort(reason);
    },
  });
  return { stream, compiled, userMessageId: userId, stored: stored.promise };
}

/** The turn's call spans, with the session's last call before the turn for the first one's cache share. */
async function openCallSpans(
  context: TurnContext,
  sessionId: string,
  model: NonNullable<SessionEngineOptions['model']>,
): Promise<CallSpans | undefined> {
  if (context.tracer === undefined) return undefined;
  const [last] = await context.engine.listCalls(sessionId, { limit: 1 });
  const provider = typeof model.model === 'string' ? (model.model.split(':')[0] ?? '') : model.model.provider;
  const modelId = typeof model.model === 'string' ? model.model : model.model.modelId;
  return traceCalls({
    tracer: context.tracer,
    sessionId,
    provider,
    modelId,
    ...(last === undefined ? {} : { previous: last.report }),
  });
}

async function runCommand(args: {
  input: TurnInput;
  context: TurnContext;
  userId: string;
  scope: 'all' | 'requirement' | 'artifacts';
  text: string;
}): Promise<Turn> {
  const { input, context, userId } = args;
  const { engine, now, createId } = context;
  const userMessage: Message = {
    id: userId,
    role: 'user',
    content: args.text,
    metadata: { createdAt: now().toISOString(), command: 'compress' },
  };
  await engine.store.appendMessages(input.sessionId, [userMessage]);
  const outcome = await engine.compress(input.sessionId, {
    scope: args.scope,
    turnId: userId,
    ...(input.signal === undefined ? {} : { signal: input.signal }),
  });
  const assistantId = createId();
  const reply = describeCompress(outcome);
  const answer: Message = {
    id: assistantId,
    role: 'assistant',
    content: reply,
    metadata: {
      createdAt: now().toISOString(),
      command: 'compress',
      uiMessageId: assistantId,
      compress: brief(outcome),
    },
  };
  await engine.store.appendMessages(input.sessionId, [answer]);
  const stream = createUIMessageStream<NotebookUIMessage>({
    generateId: createId,
    execute: ({ writer }) => {
      writer.write({ type: 'start', messageId: assistantId, messageMetadata: { command: 'compress' } });
      writer.write({ type: 'text-start', id: `${assistantId}-text` });
      writer.write({ type: 'text-delta', id: `${assistantId}-text`, delta: reply });
      writer.write({ type: 'text-end', id: `${assistantId}-text` });
      writer.write({ type: 'finish' });
    },
  });
  return { stream, compiled: undefined, userMessageId: userId, stored: Promise.resolve([answer]) };
}

/** The answer to `/compress`, in the chat: what was summarised, what was not, and the new size. */
export function describeCompress(outcome: CompressOutcome): string {
  const lines = [
    `/${'compress'}${outcome.scope === 'all' ? '' : ` ${outcome.scope}`}:${
      // A process without a preview cannot say what its next call costs.
      Number.isFinite(outcome.tokensBefore)
        ? ` context ${outcome.tokensBefore} → ${outcome.tokensAfter} tokens.`
        : ' done (the next call depends on the route).'
    }`,
  ];
  if (outcome.declined !== undefined) {
    lines.push(
      `Nothing stored: compressing now would make the next call larger (${outcome.tokensBefore} → ${outcome.declined.wouldBe} tokens), so the history stays as it is.`,
    );
    return lines.join('\n');
  }
  const summary = outcome.summary;
  if (summary !== null) {
    if (summary.requested === 0)
      lines.push('History: nothing new to summarise (the recent messages stay verbatim).');
    else {
      lines.push(
        `History: ${summary.newlyCovered} of ${summary.requested} older messages summarised (${summary.tokens} tokens); the summary covers the first ${summary.summary?.coveredCount ?? 0} messages.`,
      );
      if (summary.summarizerFailure !== undefined) {
        lines.push(
          `The summariser failed (${summary.summarizerFailure.slice(0, 200)}); the offline extractive summariser wrote this summary instead.`,
        );
      }
      if (summary.notCovered > 0) {
        lines.push(
          `${summary.notCovered} messages did not fit the summary and stay in the history as they are.`,
        );
      }
    }
  }
  if (outcome.requirements !== null) {
    lines.push(
      `Requirements: ${outcome.requirements.items} in the TODO (${outcome.requirements.applied} messages added requirements${outcome.requirements.rejected > 0 ? `, ${outcome.requirements.rejected} proposals rejected` : ''}${outcome.requirements.fallbacks > 0 ? `; the model failed on ${outcome.requirements.fallbacks}, done offline instead` : ''}).`,
    );
  }
  if (outcome.artifacts !== null) {
    lines.push(
      `Artifacts: ${outcome.artifacts.artifacts} documents and ${outcome.artifacts.evidence} tool results indexed.`,
    );
  }
  return lines.join('\n');
}

function brief(outcome: CompressOutcome) {
  return {
    scope: outcome.scope,
    tokensBefore: outcome.tokensBefore,
    tokensAfter: outcome.tokensAfter,
    ...(outcome.summary === null
      ? {}
      : {
          summarised: outcome.summary.newlyCovered,
          requested: outcome.summary.requested,
          notCovered: outcome.summary.notCovered,
        }),
  };
}

/** Messages a call's compaction moved behind the cut (decision 040), 0 when none. */
export function compactedMessages(actions: readonly CompactionAction[]): number {
  let count = 0;
  for (const action of actions) if (action.type === 'compacted') count += action.messages;
  return count;
}

/** The references merged into the query, as the chat stream and the preview report them. */
export function reportedReferences(compiled: SessionCompile): ReportedReference[] {
  return compiled.references.map((reference) => ({
    path: reference.path,
    startLine: reference.startLine,
    endLine: reference.endLine,
    ...(reference.blockId === undefined ? {} : { block: reference.blockId }),
  }));
}

/** The engine's `modelTimeoutMs`, checked: a bad value is a typed error before anything is stored. */
function modelTimeoutOf(options: SessionEngineOptions): number {
  const timeoutMs = options.modelTimeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 3_600_000) {
    throw new CtxloomError({
      code: 'invalid-config',
      message: `modelTimeoutMs must be an integer in 1..3600000 (ms), got ${timeoutMs}`,
      path: 'modelTimeoutMs',
    });
  }
  return timeoutMs;
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  promise.catch(() => {});
  return { promise, resolve, reject };
}
