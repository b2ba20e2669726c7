import { createUIMessageStream, createUIMessageStreamResponse } from 'ai';
import { Hono } from 'hono';
import { z } from 'zod';
import { CtxloomError } from '../../core/index.ts';
import { isReservedMessageId, reservedMessageIdReason } from '../../core/reserved-message-id.ts';
import { CONTEXT_CONFIG_FILE, parseContextConfig, type Sandbox } from '../../workspace/index.ts';
import { createLimiter } from '../create-limiter.ts';
import { toErrorResponse } from '../error-response.ts';
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
 * `POST /api/sessions/:id/chat` — a thin adapter over the session engine's `runTurn`: an AI
 * SDK UI message stream (SSE, `x-vercel-ai-ui-message-stream: v1`) that the SDK's own
 * `useChat` consumes unchanged. The server owns the history, so only the last (user)
 * message of the body is read. Bad requests (unknown session, bad body, malformed manifest,
 * an already stored message id) are refused with an HTTP error before anything is stored;
 * `/compress …` is a command, answered without a model call. The stream's `finish` comes
 * after the answer is stored; a disconnect stores what arrived, marked `partial`.
 *
 * Compiles run at most `maxConcurrentCompiles` at once. When any compile is running or
 * waiting, the response does not wait for its own: its headers and a `start` chunk go out at
 * once and the turn runs when a slot frees; what its compile refuses then (references, a stored
 * message id) is the stream's `error` chunk whose text is the JSON error body the HTTP error
 * would have carried. The same when a turn of the session that this route started has not
 * ended: the new turn waits for it to store its answer (a model call of any length), and
 * its headers do not. Only on an idle server are those refusals HTTP errors.
 */
export function chatRoute(context: NotebookContext): Hono {
  const app = new Hono();
  const limiter = createLimiter(context.maxConcurrentCompiles);
  // Turns this route started, by session, that have not stored their answer yet.
  const running = new Map<string, number>();
  const ended = (sessionId: string) => {
    const left = (running.get(sessionId) ?? 1) - 1;
    if (left > 0) running.set(sessionId, left);
    else running.delete(sessionId);
  };
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
    // The engine refuses it too (naming `messageId`); here the error names the body's field.
    if (last.id !== undefined && isReservedMessageId(last.id)) {
      throw new CtxloomError({
        code: 'invalid-argument',
        message: `${reservedMessageIdReason(last.id)}; nothing was stored`,
        path: `messages.${body.messages.length - 1}.id`,
      });
    }
    await checkConfig(context.workspace.session(sessionId));
    // The limiter holds the turn's compile only: a turn waiting for another turn of its session
    // to store its answer takes a slot when the session is its.
    const run = async () => {
      running.set(sessionId, (running.get(sessionId) ?? 0) + 1);
      try {
        const turn = await context.engine.runTurn({
          sessionId,
          text,
          ...(last.id === undefined || last.id === '' ? {} : { messageId: last.id }),
          signal: c.req.raw.signal,
          slot: (work) => limiter.run(work),
        });
        turn.stored.then(
          () => ended(sessionId),
          () => ended(sessionId),
        );
        return turn;
      } catch (error) {
        ended(sessionId);
        throw error;
      }
    };
    // Only a server with nothing compiling waits for the compile before its headers (so what
    // the compile refuses is an HTTP error): beside a running compile this one would share the
    // CPU and hold its headers for both (bench/server: the first chats of a burst of 100 waited
    // 300 ms). Nor beside a turn of its session, which it waits for. Otherwise answer now
    // (headers and a `start`), compile when a slot frees.
    if (limiter.active === 0 && limiter.waiting === 0 && !running.has(sessionId))
      return createUIMessageStreamResponse({ stream: (await run()).stream });
    // What the compile refuses then arrives as the stream's error, carrying the HTTP error body.
    const stream = createUIMessageStream({
      execute: async ({ writer }) => {
        writer.write({ type: 'start' });
        try {
          writer.merge((await run()).stream);
        } catch (error) {
          writer.write({ type: 'error', errorText: await toErrorResponse(error).text() });
        }
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
