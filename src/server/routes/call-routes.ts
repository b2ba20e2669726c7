import { Hono } from 'hono';
import { type CompileReport, CtxloomError, diffReports } from '../../core/index.ts';
import { shorten } from '../../core/shorten.ts';
import type { CallRecord } from '../../session/index.ts';
import type { CallDiffResponse, CallHeader, CallListResponse, CallResponse } from '../api-types.ts';
import type { NotebookContext } from '../notebook-context.ts';
import { requireSession } from '../session-records.ts';

/** Most records read to find one call: the store keeps at least 200 (`CALL_LOG_CAPACITY`). */
const LOOKUP_LIMIT = 1000;
/** Records listed when the request names no `limit`: the most the store keeps by default. */
const DEFAULT_LIMIT = 200;
/** The cache split's threshold: Anthropic and OpenAI cache no prefix shorter than 1,024 tokens. */
const MIN_CACHE_TOKENS = 1024;

/**
 * The call log, read through the session engine: the list, one call with the other steps of
 * its turn, and one call's diff against the call before it (core's `diffReports`). A call
 * that is unknown or no longer kept is a `not-found` naming its id.
 */
export function callRoutes(context: NotebookContext): Hono {
  const app = new Hono();
  const { workspace, engine } = context;

  app.get('/api/sessions/:id/calls', async (c) => {
    const sessionId = c.req.param('id');
    await requireSession(workspace, sessionId);
    const calls = await engine.listCalls(sessionId, { limit: limitOf(c.req.query('limit')) });
    return c.json({ calls } satisfies CallListResponse);
  });

  app.get('/api/sessions/:id/calls/:callId', async (c) => {
    const { calls, index } = await findCall(context, c.req.param('id'), c.req.param('callId'));
    const call = calls[index] as CallRecord;
    const turn = calls
      .filter((candidate) => candidate.turnId === call.turnId)
      .sort((left, right) => left.step - right.step);
    return c.json({ call, turn } satisfies CallResponse);
  });

  app.get('/api/sessions/:id/calls/:callId/diff', async (c) => {
    const { calls, index } = await findCall(context, c.req.param('id'), c.req.param('callId'));
    const call = calls[index] as CallRecord;
    const previous = calls[index - 1];
    return c.json({
      call: headerOf(call),
      previous: previous === undefined ? null : headerOf(previous),
      diff:
        previous === undefined
          ? null
          : diffReports(previous.report, call.report, { minCacheTokens: MIN_CACHE_TOKENS }),
      layers: previous === undefined ? [] : layerTokens(previous.report, call.report),
      minCacheTokens: MIN_CACHE_TOKENS,
    } satisfies CallDiffResponse);
  });
  return app;
}

/**
 * The `limit` query parameter: absent is {@link DEFAULT_LIMIT}; anything but a whole number from 1
 * to {@link LOOKUP_LIMIT} (`abc`, `-1`, `1e999`, `2.5`, empty) is `invalid-argument` naming `limit`.
 */
function limitOf(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_LIMIT;
  const limit = /^\d{1,7}$/u.test(raw) ? Number(raw) : Number.NaN;
  if (limit >= 1 && limit <= LOOKUP_LIMIT) return limit;
  throw new CtxloomError({
    code: 'invalid-argument',
    message: `limit must be a whole number from 1 to ${LOOKUP_LIMIT}, got ${JSON.stringify(shorten(raw, 40))}`,
    path: 'limit',
  });
}

async function findCall(
  context: NotebookContext,
  sessionId: string,
  callId: string,
): Promise<{ calls: CallRecord[]; index: number }> {
  await requireSession(context.workspace, sessionId);
  const calls = await context.engine.listCalls(sessionId, { limit: LOOKUP_LIMIT });
  const index = calls.findIndex((call) => call.id === callId);
  if (index < 0) {
    throw new CtxloomError({
      code: 'not-found',
      message: `no call ${JSON.stringify(shorten(callId))} in the log of session "${sessionId}" (${whereLooked(calls.length)})`,
      path: shorten(callId),
    });
  }
  return { calls, index };
}

/** What a failed call lookup searched: the whole log, or its most recent records only. */
function whereLooked(count: number): string {
  if (count === 0) return 'its log keeps no calls';
  if (count < LOOKUP_LIMIT) return `none of the ${count} calls its log keeps has that id`;
  return `unknown, or older than the ${count} most recent calls searched`;
}

function headerOf(call: CallRecord): CallHeader {
  return { id: call.id, turnId: call.turnId, step: call.step, at: call.at, model: call.model };
}

function layerTokens(previous: CompileReport, current: CompileReport): CallDiffResponse['layers'] {
  const before = new Map(previous.layers.map((layer) => [layer.layer, layer.tokens]));
  const rows = current.layers.map((layer) => ({
    layer: layer.layer,
    previousTokens: before.get(layer.layer) ?? 0,
    currentTokens: layer.tokens,
  }));
  for (const layer of previous.layers)
    if (!current.layers.some((candidate) => candidate.layer === layer.layer))
      rows.push({ layer: layer.layer, previousTokens: layer.tokens, currentTokens: 0 });
  return rows;
}
