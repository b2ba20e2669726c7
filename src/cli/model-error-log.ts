import { inspect } from 'node:util';
import type { ModelErrorEvent } from '../session/index.ts';
import { plainDecimal } from './usage-error.ts';

/** Options of {@link createModelErrorLog}. */
export interface ModelErrorLogOptions {
  /** Where the lines go (the process's stderr). */
  write: (text: string) => void;
  /** `CTXLOOM_DEBUG` and `CTXLOOM_MODEL_TIMEOUT_MS` are read from here. */
  env: Record<string, string | undefined>;
  /** Print the one-line summary (serve) or only the debug detail (chat, which prints the stream's error line). */
  summary: boolean;
}

/** True when `CTXLOOM_DEBUG` asks for full errors (`1`, `true`, `yes`). */
export function isDebug(env: Record<string, string | undefined>): boolean {
  return /^(?:1|true|yes)$/iu.test(env.CTXLOOM_DEBUG ?? '');
}

/**
 * The engine's `onModelError` for the CLI: one line per failed turn
 * (`model-error session raft turn u-1: the model … failed: … (HTTP 429, after 3 attempts)`);
 * with `CTXLOOM_DEBUG=1` the provider's full error object after it. Returns `undefined` when
 * there is nothing to print.
 */
export function createModelErrorLog(
  options: ModelErrorLogOptions,
): ((event: ModelErrorEvent) => void) | undefined {
  const debug = isDebug(options.env);
  if (!options.summary && !debug) return undefined;
  return (event) => {
    if (options.summary) {
      options.write(
        `${event.error.code} session ${event.sessionId} turn ${event.turnId}: ${event.error.message}\n`,
      );
    }
    if (debug) options.write(`${inspect(event.error.cause ?? event.error, { depth: 6 })}\n`);
  };
}

/**
 * `CTXLOOM_MODEL_TIMEOUT_MS` as the engine's `modelTimeoutMs` (`{}` when unset); a bad value
 * reaches the engine, which refuses it with `invalid-config` naming `modelTimeoutMs`.
 */
export function modelTimeoutFromEnv(env: Record<string, string | undefined>): { modelTimeoutMs?: number } {
  const raw = env.CTXLOOM_MODEL_TIMEOUT_MS?.trim();
  return raw === undefined || raw === '' ? {} : { modelTimeoutMs: plainDecimal(raw) };
}
