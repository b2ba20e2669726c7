import { createUIMessageStream, createUIMessageStreamResponse, stepCountIs, streamText } from 'ai';
import { Hono } from 'hono';
import { z } from 'zod';
import { CtxloomError, type Message } from '../../core/index.ts';
import { type NotebookUIMessage, toStoredMessages } from '../../stream/index.ts';
import { CONTEXT_CONFIG_FILE, parseContextConfig, type Sandbox } from '../../workspace/index.ts';
import { appendSessionMessages } from '../append-session-messages.ts';
import { compileSession } from '../compile-session.ts';
import { createChatTools } from '../create-chat-tools.ts';
import { createLimiter } from '../create-limiter.ts';
import type { NotebookContext } from '../notebook-context.ts';
import { readJsonBody } from '../read-json-body.ts';
import { requireSession } from '../session-records.ts';

/** The body `DefaultChatTransport` sends: `{ id, messages, trigger, … }`; only the last message is used. */
const chatBody = z.looseObject({
  messages: z
    .array(
      z.looseObject({
        id: z.string().max(200).optional(),
        role: z.string(),
        parts: z.array(z.looseObject({ type: z.string(), text: z.string().optional() })),
      }),
    )
    .min(1),
});

/**
 * `POST /api/sessions/:id/chat` — a thin layer over the compile: an AI SDK UI message stream
 * (SSE, `x-vercel-ai-ui-message-stream: v1`) that the SDK's own `useChat` consumes unchanged.
 * The server owns the history (`messages.json`), so only the last (user) message of the body
 * is read.
 *
 * Bad requests are refused with an HTTP error before streaming: unknown session, bad body,
 * malformed manifest, an already stored message id. Then the stream starts at once (`start`)
 * and the work follows inside it: compile (the same as the preview) → store the user message
 * once → `data-context-report` → the model's multi-step answer with the workspace tools. The
 * assistant message is accumulated by the SDK's own UI-stream reader and stored when the
 * stream ends; a disconnect or failure stores what arrived, marked `partial`. A failure after
 * the start (a compile error, the model) is an `error` chunk in the stream.
 */
export function chatRoute(context: NotebookContext): Hono {
  const app = new Hono();
  const compileLimiter = createLimiter(context.maxConcurrentCompiles);
  // Ids this server stored: a retried message gets its 409 without reading the history.
  // Anything else is still refused (conflict) by the append inside the stream.
  const recentIds = createRecentIds(10_000);
  app.post('/api/sessions/:id/chat', async (c) => {
    const sessionId = c.req.param('id');
    await requireSession(context.workspace, sessionId);
    const body = await readJsonBody(c, chatBody);
    const last = body.messages.at(-1);
    const text = (last?.parts ?? [])
      .map((part) => (part.type === 'text' ? (part.text ?? '') : ''))
      .join('')
      .trim();
    if (last?.role !== 'user' || text === '') {
      throw new CtxloomError({
        code: 'invalid-argument',
        message: 'the last message must be a user message with text',
        path: `messages.${body.messages.length - 1}`,
      });
    }
    const sandbox = context.workspace.session(sessionId);
    await checkConfig(sandbox);
    const userId = last.id !== undefined && last.id !== '' ? last.id : context.createId();
    if (recentIds.has(sessionId, userId)) {
      throw new CtxloomError({
        code: 'conflict',
        message: `message id "${userId}" is already stored`,
        path: userId,
      });
    }

    const assistantId = context.createId();
    const abort = new AbortController();
    c.req.raw.signal.addEventListener('abort', () => abort.abort(), { once: true });
    let summary: Record<string, unknown> | undefined;
    let cancelledBeforeModel = false;
    const partialAnswer = (id: string): Message => {
      const createdAt = context.now().toISOString();
      return {
        id,
        role: 'assistant',
        content: '',
        metadata: { createdAt, partial: true, uiMessageId: id, context: summary },
      };
    };
    const stream = createUIMessageStream<NotebookUIMessage>({
      generateId: context.createId,
      execute: async ({ writer }) => {
        writer.write({ type: 'start', messageId: assistantId });
        const compiled = await compileLimiter.run(async () => {
          const result = await compileSession(context, sessionId, { query: text, queryId: userId });
          const userMessage: Message = {
            id: userId,
            role: 'user',
            content: text,
            metadata: { ...result.queryMessage?.metadata, createdAt: context.now().toISOString() },
          };
          await appendSessionMessages(sandbox, [userMessage]);
          recentIds.add(sessionId, userId);
          return result;
        });
        const references = compiled.references.map((reference) => ({
          path: reference.path,
          startLine: reference.startLine,
          endLine: reference.endLine,
          ...(reference.blockId === undefined ? {} : { block: reference.blockId }),
        }));
        summary = {
          totalTokens: compiled.report.totalTokens,
          inputBudget: compiled.report.inputBudget,
          references,
        };
        if (cancelledBeforeModel || abort.signal.aborted) {
          // The client left during the compile: the record still shows the turn, as partial.
          await appendSessionMessages(sandbox, [partialAnswer(assistantId)]);
          return;
        }
        writer.write({
          type: 'data-context-report',
          id: `report-${assistantId}`,
          data: {
            report: compiled.report,
            warnings: compiled.warnings,
            references,
            model: { spec: context.model.spec, offline: context.model.offline },
          },
        });
        const result = streamText({
          model: context.model.model,
          instructions: compiled.aiSdk.instructions,
          messages: compiled.aiSdk.messages,
          tools: createChatTools(context, sessionId),
          stopWhen: stepCountIs(context.maxSteps),
          abortSignal: abort.signal,
        });
        writer.merge(result.toUIMessageStream({ sendStart: false }));
      },
      onError: (error) => (error instanceof Error ? error.message : 'the model call failed'),
      onFinish: async ({ responseMessage, isAborted, isCancelled, outcome }) => {
        if (isCancelled === true) abort.abort();
        if (summary === undefined) {
          // Cancelled before the compile finished: `execute` stores the partial turn. A failed
          // compile stores nothing (the user message was not stored either).
          cancelledBeforeModel = isAborted || isCancelled === true;
          return;
        }
        const partial = isAborted || isCancelled === true || outcome.status === 'failed';
        const createdAt = context.now().toISOString();
        let stored = toStoredMessages(responseMessage, {
          createdAt,
          partial,
          metadata: { context: summary },
        });
        if (stored.length === 0 && partial) stored = [partialAnswer(responseMessage.id || assistantId)];
        if (stored.length > 0) await appendSessionMessages(sandbox, stored);
      },
    });
    return createUIMessageStreamResponse({ stream });
  });
  return app;
}

const checkedConfigs = new WeakMap<Sandbox, string>();

/** Refuses a malformed `context-config.json` before streaming; re-parsed only when it changed. */
async function checkConfig(sandbox: Sandbox): Promise<void> {
  const info = await sandbox.stat(CONTEXT_CONFIG_FILE);
  if (info === undefined) return;
  const key = `${info.size}:${info.mtimeMs}`;
  if (checkedConfigs.get(sandbox) === key) return;
  parseContextConfig(await sandbox.readText(CONTEXT_CONFIG_FILE), CONTEXT_CONFIG_FILE);
  checkedConfigs.set(sandbox, key);
}

/** A bounded set of (session, message id) pairs, oldest evicted first. */
function createRecentIds(capacity: number) {
  const ids = new Set<string>();
  const key = (sessionId: string, id: string) => `${sessionId}\u0000${id}`;
  return {
    has: (sessionId: string, id: string) => ids.has(key(sessionId, id)),
    add(sessionId: string, id: string) {
      ids.add(key(sessionId, id));
      if (ids.size > capacity) ids.delete(ids.values().next().value as string);
    },
  };
}
