import { CtxloomError } from '../core/index.ts';
import { CALL_LOG_CAPACITY, MAX_LISTED_CALLS, type SessionStore } from './session-store.ts';

/** Options of {@link copySession}. */
export interface CopySessionOptions {
  from: SessionStore;
  to: SessionStore;
  sessionId: string;
  /** Id in `to`. Default `sessionId`. */
  toSessionId?: string;
}

/** What {@link copySession} copied. */
export interface CopySessionResult {
  messages: number;
  curation: number;
  calls: number;
  /** The compression revision in `to` (0: nothing to copy). */
  compressionRevision: number;
}

/**
 * Copies one session between stores — the migration path from workspace files to checkpoints
 * (or back): messages, curation events, the compression state (summary with its coverage,
 * structured state) and the call log, through the port only, so any two adapters work. The
 * target session must be empty (`conflict` otherwise); the source is left as it is. All or
 * nothing: when a write fails midway, what was copied is removed again (`deleteSession`)
 * before the error is thrown, so the target is empty as before.
 * @example await copySession({ from: createFileSessionStore({ workspace }), to: sqliteStore, sessionId: 'demo' });
 */
export async function copySession(options: CopySessionOptions): Promise<CopySessionResult> {
  const { from, to, sessionId } = options;
  const target = options.toSessionId ?? sessionId;
  const existing = await to.load(target);
  if (
    existing.messages.length > 0 ||
    existing.curation.length > 0 ||
    existing.compression.revision > 0 ||
    (await to.listCalls(target, { limit: 1 })).length > 0
  ) {
    throw new CtxloomError({
      code: 'conflict',
      message: `session "${target}" in the ${to.kind} store is not empty; nothing was copied`,
      path: target,
    });
  }
  const state = await from.load(sessionId);
  const calls = await from.listCalls(sessionId, { limit: Math.min(MAX_LISTED_CALLS, CALL_LOG_CAPACITY * 5) });
  let compressionRevision = 0;
  try {
    await to.appendMessages(target, state.messages);
    await to.appendCuration(target, state.curation);
    const { revision, ...compression } = state.compression;
    if (revision > 0 || compression.summary !== null || compression.structured !== null) {
      compressionRevision = (await to.saveCompression(target, compression, { expectedRevision: 0 })).revision;
    }
    for (const call of calls) await to.appendCall(target, call);
  } catch (error) {
    await to.deleteSession(target);
    throw error;
  }
  return {
    messages: state.messages.length,
    curation: state.curation.length,
    calls: calls.length,
    compressionRevision,
  };
}
