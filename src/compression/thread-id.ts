import { CtxloomError } from '../core/index.ts';

/** A session's root key: `<app>:user:{userId}:session:{sessionId}` (seed 004 §1). */
export type ThreadId = `${string}:user:${string}:session:${string}`;

/** The three parts of a {@link ThreadId}. */
export interface ThreadIdParts {
  /** Application prefix, e.g. `etl`: lowercase letters, digits, `_` and `-`. */
  app: string;
  /** User id: any non-empty text without `:`. */
  userId: string;
  /** Session (window) id: any non-empty text without `:`. */
  sessionId: string;
}

const APP = /^[a-z][a-z0-9_-]*$/u;
const PART = /^[^:\s]+$/u;
const THREAD = /^([a-z][a-z0-9_-]*):user:([^:\s]+):session:([^:\s]+)$/u;

/**
 * Builds the thread id every compression and routing store is keyed by. Two sessions of one
 * user, or two users with the same session id, always get different keys.
 * @example formatThreadId({ app: 'etl', userId: 'u1', sessionId: 's1' }) // 'etl:user:u1:session:s1'
 */
export function formatThreadId(parts: ThreadIdParts): ThreadId {
  if (!APP.test(parts.app)) throw invalid('app', parts.app);
  if (!PART.test(parts.userId)) throw invalid('userId', parts.userId);
  if (!PART.test(parts.sessionId)) throw invalid('sessionId', parts.sessionId);
  return `${parts.app}:user:${parts.userId}:session:${parts.sessionId}`;
}

/** Splits a thread id into its parts; throws `invalid-argument` when it has another shape. */
export function parseThreadId(threadId: string): ThreadIdParts {
  const match = THREAD.exec(threadId);
  if (match === null) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `thread id must look like <app>:user:<userId>:session:<sessionId>, got "${threadId}"`,
      path: 'threadId',
    });
  }
  return { app: match[1] as string, userId: match[2] as string, sessionId: match[3] as string };
}

/** True when `value` is a well-formed {@link ThreadId}. */
export function isThreadId(value: string): value is ThreadId {
  return THREAD.test(value);
}

function invalid(path: string, value: string): CtxloomError {
  return new CtxloomError({
    code: 'invalid-argument',
    message: `${path} must be non-empty and contain no ':' or whitespace, got "${value}"`,
    path,
  });
}
