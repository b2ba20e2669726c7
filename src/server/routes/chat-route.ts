import { createUIMessageStream, createUIMessageStreamResponse, stepCountIs, streamText } from 'ai';
import { Hono } from 'hono';
import { z } from 'zod';
import { CtxloomError, type Message } from '../../core/index.ts';
import { type NotebookUIMessage, toStoredMessages } from '../../stream/index.ts';
import { appendMessages } from '../../workspace/index.ts';
import { compileSession } from '../compile-session.ts';
import { createChatTools } from '../create-chat-tools.ts';
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
 * is read. Order: compile (same as the preview) → store the user message once → stream
 * `start`, `data-context-report`, then the model's multi-step answer with the workspace tools.
 * The assistant message is accumulated by the SDK's own UI-stream reader and stored when the
 * stream ends; a disconnect or failure stores what arrived, marked `partial`.
 */
export function chatRoute(context: NotebookContext): Hono {
  const app = new Hono();
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
    const userId = last.id !== undefined && last.id !== '' ? last.id : context.createId();
    const compiled = await compileSession(context, sessionId, { query: text, queryId: userId });
    const sandbox = context.workspace.session(sessionId);
    const userMessage: Message = {
      id: userId,
      role: 'user',
      content: text,
      metadata: { ...compiled.queryMessage?.metadata, createdAt: context.now().toISOString() },
    };
    await appendMessages(sandbox, [userMessage]);

    const references = compiled.references.map((reference) => ({
      path: reference.path,
      startLine: reference.startLine,
      endLine: reference.endLine,
      ...(reference.blockId === undefined ? {} : { block: reference.blockId }),
    }));
    const assistantId = context.createId();
    const abort = new AbortController();
    const signal = c.req.raw.signal;
    signal.addEventListener('abort', () => abort.abort(signal.reason), { once: true });
    const stream = createUIMessageStream<NotebookUIMessage>({
      generateId: context.createId,
      execute: ({ writer }) => {
        writer.write({ type: 'start', messageId: assistantId });
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
        const partial = isAborted || isCancelled === true || outcome.status === 'failed';
        const createdAt = context.now().toISOString();
        const summary = {
          totalTokens: compiled.report.totalTokens,
          inputBudget: compiled.report.inputBudget,
          references,
        };
        let stored = toStoredMessages(responseMessage, {
          createdAt,
          partial,
          metadata: { context: summary },
        });
        if (stored.length === 0 && partial) {
          stored = [
            {
              id: responseMessage.id || assistantId,
              role: 'assistant',
              content: '',
              metadata: { createdAt, partial },
            },
          ];
        }
        if (stored.length > 0) await appendMessages(sandbox, stored);
      },
    });
    return createUIMessageStreamResponse({ stream });
  });
  return app;
}
