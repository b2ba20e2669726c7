import { Hono } from 'hono';
import { z } from 'zod';
import type { CallRecord, Message } from '../../core/index.ts';
import { OFFLINE_HINT } from '../../llm/index.ts';
import { toUiMessages } from '../../stream/index.ts';
import { createSession, foldCurationEvents, sessionRecordSchema } from '../../workspace/index.ts';
import type { NotebookContext } from '../notebook-context.ts';
import { readJsonBody } from '../read-json-body.ts';
import {
  deleteSessionRecord,
  renameSessionRecord,
  requireSession,
  requireSessionRecord,
} from '../session-records.ts';

/**
 * A session's concept: a one-line title (it heads `session-prompt.md`), so no control
 * characters (a NUL would make that file read as binary), and text UTF-8 can store.
 */
const conceptSchema = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .refine((concept) => !/\p{Cc}/u.test(concept), 'a concept cannot contain control characters')
  .refine(
    (concept) => concept.isWellFormed(),
    'a concept cannot contain a lone surrogate (half of a UTF-16 pair)',
  );
const createBody = z.strictObject({
  concept: conceptSchema,
  id: sessionRecordSchema.shape.id.optional(),
});
const renameBody = z.strictObject({ concept: conceptSchema });

/** Session CRUD: `GET/POST /api/sessions`, `GET/PATCH/DELETE /api/sessions/:id`. */
export function sessionRoutes(context: NotebookContext): Hono {
  const app = new Hono();
  const { workspace } = context;

  app.get('/api/sessions', async (c) =>
    c.json({
      sessions: await workspace.listSessions(),
      model: { spec: context.model.spec, offline: context.model.offline, hint: OFFLINE_HINT },
    }),
  );

  app.post('/api/sessions', async (c) => {
    const body = await readJsonBody(c, createBody);
    const record = await createSession({
      workspace,
      concept: body.concept,
      id: body.id ?? slugFor(body.concept, context.createId()),
      now: context.now,
      files: {
        'context-config.json': `${JSON.stringify(defaultConfig(), null, 2)}\n`,
        'session-prompt.md': `# ${body.concept}\n\n`,
        'messages.json': '[]\n',
      },
    });
    return c.json({ session: record }, 201);
  });

  app.get('/api/sessions/:id', async (c) => {
    const sessionId = c.req.param('id');
    const session = await requireSession(workspace, sessionId);
    // The session store holds the record and its curation (the workspace files, or checkpoints).
    const { messages, curation } = await context.store.load(sessionId);
    const statuses = new Map(
      [...foldCurationEvents(curation)].map(([id, status]) => [
        id,
        {
          state: status.state,
          by: status.by,
          ...(status.summary === undefined ? {} : { summary: status.summary }),
        },
      ]),
    );
    // Answers a runtime process stored carry no call summary: take it from the call log.
    const shown = messages.some(isUnsummarisedAnswer)
      ? withCallSummaries(messages, await context.store.listCalls(sessionId, { limit: 1000 }))
      : messages;
    return c.json({ session, messages: toUiMessages(shown, { curation: statuses }) });
  });

  app.patch('/api/sessions/:id', async (c) => {
    const body = await readJsonBody(c, renameBody);
    return c.json({ session: await renameSessionRecord(workspace, c.req.param('id'), body.concept) });
  });

  app.delete('/api/sessions/:id', async (c) => {
    const id = c.req.param('id');
    // A registered session first (404 otherwise), before anything is deleted: a folder that
    // is not one keeps its files. Its folder may be missing: the entry is deleted all the same.
    await requireSessionRecord(workspace, id);
    // The store's record first: a session created later under the same id starts empty.
    await context.store.deleteSession(id);
    await deleteSessionRecord(workspace, id);
    return c.body(null, 204);
  });
  return app;
}

function slugFor(concept: string, random: string): string {
  const slug = concept
    .toLowerCase()
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/gu, '')
    .slice(0, 40);
  const suffix = random.replace(/[^a-z0-9]/giu, '').slice(0, 6);
  return slug === '' ? `session-${suffix}` : `${slug}-${suffix}`;
}

function defaultConfig() {
  return {
    version: 1,
    systemPrompt: [
      { type: 'global', file: 'system-prompt.md' },
      { type: 'session', file: 'session-prompt.md' },
    ],
    profile: 'profile.md',
    profileBlocks: [],
    chatHistory: { source: 'messages.json', strategy: 'curated', placeholderLocale: 'zh' },
    references: [],
    injections: [],
    budget: { window: 16000, outputReserve: 0.25 },
  };
}

function isUnsummarisedAnswer(message: Message): boolean {
  return message.role === 'assistant' && message.metadata?.context === undefined;
}

/**
 * Gives the last answer of each turn that has none the turn's call summary, from the call log
 * (calls are logged with the turn's user message id): the answering call — the last one not
 * made by the router or the proposer — and every call of the turn, in order. What a runtime
 * process stored then opens its calls in the notebook like a chat answer.
 */
function withCallSummaries(messages: readonly Message[], calls: readonly CallRecord[]): Message[] {
  const byTurn = new Map<string, CallRecord[]>();
  for (const call of calls) {
    const list = byTurn.get(call.turnId) ?? [];
    list.push(call);
    byTurn.set(call.turnId, list);
  }
  const out = [...messages];
  let turn: string | undefined;
  let answer: number | undefined;
  const close = () => {
    const turnCalls = turn === undefined ? undefined : byTurn.get(turn);
    if (answer === undefined || turnCalls === undefined || turnCalls.length === 0) return;
    const answering =
      turnCalls.findLast((call) => call.agentId !== 'router' && call.agentId !== 'proposer') ??
      (turnCalls.at(-1) as CallRecord);
    const message = out[answer] as Message;
    out[answer] = {
      ...message,
      metadata: {
        ...message.metadata,
        context: {
          totalTokens: answering.report.totalTokens,
          inputBudget: answering.report.inputBudget,
          references: [],
          callId: answering.id,
          callIds: turnCalls.map((call) => call.id),
        },
      },
    };
  };
  for (const [index, message] of messages.entries()) {
    if (message.role === 'user') {
      close();
      turn = message.id;
      answer = undefined;
    } else if (message.role === 'assistant') {
      answer = isUnsummarisedAnswer(message) ? index : undefined;
    }
  }
  close();
  return out;
}
