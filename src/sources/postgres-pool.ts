import type pg from 'pg';
import { CtxloomError } from '../core/index.ts';
import { requirePeer } from '../llm/require-peer.ts';

/**
 * Default `connectionTimeoutMs` of every pool ctxloom opens: 10 s, as long as a session store's
 * write waits for another process's hold of its thread.
 */
export const POOL_CONNECTION_TIMEOUT_MS = 10_000;

/** Node's timer limit: a longer delay would fire after 1 ms. */
const MAX_TIMEOUT_MS = 2_147_483_647;

/** What `pg`'s pool says when a caller waited `connectionTimeoutMillis` for a free connection. */
const POOL_TIMEOUT_MESSAGE = 'timeout exceeded when trying to connect';

/** Options of {@link openPostgresPool}. Give a `pool` or a `connectionString`. */
export interface OpenPostgresPoolOptions {
  /** A caller's pool, used as it is (its owner sets its bounds and ends it). */
  pool?: pg.Pool | undefined;
  connectionString?: string | undefined;
  /**
   * Size of a pool opened here, as the caller's options gave it: a whole number from 1 to
   * `maxConnectionsLimit`; default `defaultMaxConnections`. Refused beside `pool`.
   */
  maxConnections?: number | undefined;
  defaultMaxConnections: number;
  /** Largest `maxConnections` the store takes. Default 10 000. */
  maxConnectionsLimit?: number;
  /**
   * How long a call waits for a connection of a pool opened here, in ms: for a free one while
   * all `maxConnections` are in use, or for a new one to open. A whole number from 1 to
   * 2 147 483 647; default {@link POOL_CONNECTION_TIMEOUT_MS}. Refused beside `pool`.
   */
  connectionTimeoutMs?: number | undefined;
  /** What needs `pg`, for the `missing-dependency` error. */
  feature: string;
}

/**
 * The `pg` pool of a PostgreSQL store: the caller's `pool`, or one opened for
 * `connectionString` whose every wait for a connection is bounded (`connectionTimeoutMs`;
 * `pg` waits without bound by default) and whose idle connections' errors never reach the
 * process (a server restart drops them; the next query opens another). `owned` says whether
 * the store ends it. Throws `invalid-argument` naming `maxConnections` or `connectionTimeoutMs`
 * before anything opens.
 */
export function openPostgresPool(options: OpenPostgresPoolOptions): { pool: pg.Pool; owned: boolean } {
  const maxConnections = options.maxConnections;
  const timeoutMs = options.connectionTimeoutMs;
  checkPoolOption(options, 'maxConnections', maxConnections, options.maxConnectionsLimit ?? 10_000, {
    beside: 'maxConnections sizes a pool the store opens; your own pool keeps its size (its max)',
    unit: '',
  });
  checkPoolOption(options, 'connectionTimeoutMs', timeoutMs, MAX_TIMEOUT_MS, {
    beside:
      'connectionTimeoutMs bounds a pool the store opens; for your own pool set its connectionTimeoutMillis',
    unit: ' of milliseconds',
  });
  if (options.pool !== undefined) return { pool: options.pool, owned: false };
  const { Pool } = requirePeer<typeof pg>({ name: 'pg', feature: options.feature });
  const pool = new Pool({
    connectionString: options.connectionString,
    max: maxConnections ?? options.defaultMaxConnections,
    connectionTimeoutMillis: timeoutMs ?? POOL_CONNECTION_TIMEOUT_MS,
  });
  pool.on('error', () => undefined);
  return { pool, owned: true };
}

/**
 * `pg`'s error of a call that waited the pool's `connectionTimeoutMillis` while every
 * connection was in use, as a `storage-error` with `details.reason` `pool-exhausted`, the
 * pool's size and its bound (the call ran nothing); `undefined` for any other error.
 */
export function poolExhaustedError(error: unknown, pool: pg.Pool): CtxloomError | undefined {
  if (!(error instanceof Error) || error.message !== POOL_TIMEOUT_MESSAGE) return undefined;
  const maxConnections = pool.options.max;
  const connectionTimeoutMs = pool.options.connectionTimeoutMillis;
  return new CtxloomError({
    code: 'storage-error',
    message: `PostgreSQL: all ${String(maxConnections)} connections of the pool stayed in use for ${String(connectionTimeoutMs)} ms, so nothing was run — retry later, or give the pool more connections or a longer connectionTimeoutMs`,
    details: { reason: 'pool-exhausted', maxConnections, connectionTimeoutMs },
    cause: error,
  });
}

/**
 * Throws `invalid-argument` naming `path` when `value` is given beside the caller's `pool` (it
 * would be ignored) or is not a whole number from 1 to `max`.
 */
function checkPoolOption(
  options: OpenPostgresPoolOptions,
  path: string,
  value: number | undefined,
  max: number,
  words: { beside: string; unit: string },
): void {
  if (value === undefined) return;
  if (options.pool !== undefined)
    throw new CtxloomError({ code: 'invalid-argument', message: words.beside, path });
  if (Number.isInteger(value) && value >= 1 && value <= max) return;
  throw new CtxloomError({
    code: 'invalid-argument',
    message: `${path} must be a whole number${words.unit} from 1 to ${String(max)}, got ${String(value)}`,
    path,
  });
}
