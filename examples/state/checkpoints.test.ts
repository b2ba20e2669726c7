import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';

// docs/state.md's PostgreSQL examples, each in a schema of its own, dropped afterwards.
const url = inject('pgUrl');
const suffix = `${process.pid}_${Date.now()}`;
const SCHEMAS = [`doc_savers_${suffix}`, `doc_sessions_${suffix}`] as const;

async function dropSchemas() {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const schema of SCHEMAS) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

beforeAll(dropSchemas);
afterAll(dropSchemas);
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

describe('docs/state.md on PostgreSQL', () => {
  it('runs the savers example: a process turn on SQLite and on PostgreSQL, pruned and vacuumed; fromConnString reads it', async () => {
    vi.stubEnv('DATABASE_URL', url);
    vi.stubEnv('DATABASE_SCHEMA', SCHEMAS[0]);
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    await import('./checkpoint-savers.ts');
    expect(log.mock.calls).toEqual([[2], [2], [true]]);
  });

  it('runs the sessions example: a turn stored in the session thread on SQLite and on PostgreSQL', async () => {
    const sessions = new URL(url);
    sessions.searchParams.set('schema', SCHEMAS[1]);
    vi.stubEnv('SESSIONS_URL', sessions.toString());
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    await import('./sessions-on-checkpoints.ts');
    expect(log.mock.calls).toEqual([
      ['checkpoint', 'assistant'],
      ['postgres', 'assistant'],
    ]);
  });
});
