import { Hono } from 'hono';
import { z } from 'zod';
import { CtxloomError, createExtractiveSummarizer } from '../../core/index.ts';
import { getTokenCounter } from '../../tokenizers/index.ts';
import { DEFAULT_MODEL, readMessages } from '../../workspace/index.ts';
import { COMPRESSION_FILE, readCompression } from '../compile-session.ts';
import type { NotebookContext } from '../notebook-context.ts';
import { readJsonBody } from '../read-json-body.ts';
import { requireSession } from '../session-records.ts';

const compressBody = z.strictObject({
  /** Recent messages left verbatim (0..1000). Default 4. */
  keepLast: z.int().min(0).max(1000).default(4),
  /** Most tokens of the summary (64..8000). Default 600. */
  maxTokens: z.int().min(64).max(8000).default(600),
});

/**
 * `POST /api/sessions/:id/compress`: summarises the history older than the last `keepLast`
 * messages with the core compaction summariser (extractive offline, or the configured one),
 * extending the previous summary, and stores it in `compression.json`. Chat and preview then
 * pass it to the compiler as `compression__context`, which skips the covered messages.
 * `messages.json` is not changed.
 */
export function compressRoute(context: NotebookContext): Hono {
  const app = new Hono();
  const counter = getTokenCounter(DEFAULT_MODEL);
  app.post('/api/sessions/:id/compress', async (c) => {
    const sessionId = c.req.param('id');
    await requireSession(context.workspace, sessionId);
    const body = await readJsonBody(c, compressBody);
    const sandbox = context.workspace.session(sessionId);
    const messages = (await readMessages(sandbox)).filter((message) => message.role !== 'system');
    const previous = await readCompression(context, sessionId);
    const start =
      previous === undefined ? 0 : messages.findIndex((m) => m.id === previous.throughMessageId) + 1;
    let end = messages.length - body.keepLast;
    // Never cut between a tool call and its result.
    while (end > start && messages[end]?.role === 'tool') end--;
    const covered = messages.slice(start, Math.max(start, end));
    const through = covered.at(-1);
    if (through === undefined) {
      throw new CtxloomError({
        code: 'invalid-argument',
        message: `nothing to compress: ${messages.length - start} uncompressed messages, keepLast ${body.keepLast}`,
        path: 'keepLast',
      });
    }
    const summarizer = context.summarizer ?? createExtractiveSummarizer({ counter });
    const summary = await summarizer.summarize({
      ...(previous === undefined ? {} : { previousSummary: previous.summary }),
      messages: covered,
      maxTokens: body.maxTokens,
    });
    const record = {
      version: 1 as const,
      summary,
      throughMessageId: through.id,
      summarizer: summarizer.name,
      createdAt: context.now().toISOString(),
    };
    await sandbox.writeText(COMPRESSION_FILE, `${JSON.stringify(record, null, 2)}\n`);
    return c.json({ ...record, coveredMessages: covered.length, tokens: counter.countText(summary) });
  });
  return app;
}
