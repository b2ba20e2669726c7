import { z } from 'zod';
import { CtxloomError } from '../core/index.ts';
import { compileWorkspaceContext, type WorkspaceContext } from '../workspace/index.ts';
import type { NotebookContext } from './notebook-context.ts';

/** File in a session folder holding the summary written by `POST /compress`. */
export const COMPRESSION_FILE = 'compression.json';

/** Shape of {@link COMPRESSION_FILE}. */
export const compressionFileSchema = z.object({
  version: z.literal(1),
  summary: z.string(),
  throughMessageId: z.string(),
  summarizer: z.string(),
  createdAt: z.string(),
});

/** The stored compression summary of a session, if any. */
export async function readCompression(
  context: NotebookContext,
  sessionId: string,
): Promise<z.infer<typeof compressionFileSchema> | undefined> {
  const sandbox = context.workspace.session(sessionId);
  if (!(await sandbox.exists(COMPRESSION_FILE))) return undefined;
  const text = await sandbox.readText(COMPRESSION_FILE);
  const parsed = compressionFileSchema.safeParse(safeJson(text));
  if (!parsed.success) {
    throw new CtxloomError({
      code: 'invalid-config',
      message: 'invalid compression file',
      file: COMPRESSION_FILE,
    });
  }
  return parsed.data;
}

/**
 * The compile both `chat` and `context-preview` run: the session's manifest through the
 * workspace compiler, with the stored compression summary. No model call.
 */
export async function compileSession(
  context: NotebookContext,
  sessionId: string,
  options: { query?: string; queryId?: string } = {},
): Promise<WorkspaceContext> {
  const compression = await readCompression(context, sessionId);
  return compileWorkspaceContext({
    workspace: context.workspace,
    sessionId,
    ...(options.query === undefined ? {} : { query: options.query }),
    ...(options.queryId === undefined ? {} : { queryId: options.queryId }),
    ...(compression === undefined
      ? {}
      : { compression: { summary: compression.summary, throughMessageId: compression.throughMessageId } }),
  });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
