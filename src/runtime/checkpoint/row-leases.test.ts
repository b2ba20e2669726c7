import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresDriver } from './postgres-driver.ts';
import type { SqlDriver } from './sql-driver.ts';
import { createSqliteDriver } from './sqlite-driver.ts';
import { rowLeases, ThreadBusyError } from './thread-lease.ts';

const url = process.env.CTXLOOM_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `ctxloom_row_leases_${process.pid}_${Date.now().toString(36)}`;
const directory = mkdtempSync(join(tmpdir(), 'ctxloom-row-leases-'));
const pool = new pg.Pool({ connectionString: url, max: 8 });
await pool.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);

afterAll(async () => {
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await pool.end();
  rmSync(directory, { recursive: true, force: true });
});

/** The pid of a process that has exited (a lease it held is a crashed holder's). */
const deadPid = (): number => {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
};

const drivers: [string, () => { driver: SqlDriver; table: string }][] = [
  ['SQLite', () => ({ driver: createSqliteDriver({ path: join(directory, 'leases.db') }), table: 'leases' })],
  ['PostgreSQL', () => ({ driver: createPostgresDriver({ pool }), table: `"${schema}".leases` })],
];

describe.each(drivers)('rowLeases on %s', (_name, open) => {
  const { driver, table } = open();
  const leases = rowLeases(driver, table);

  it('lets one holder in at a time, however many ask at once; a released lease is free again', async () => {
    const threadId = 'race';
    const attempts = await Promise.allSettled(
      Array.from({ length: 8 }, () => leases.acquireThread({ threadId })),
    );
    const held = attempts.filter((attempt) => attempt.status === 'fulfilled');
    expect(held).toHaveLength(1);
    for (const attempt of attempts)
      if (attempt.status === 'rejected') expect(attempt.reason).toBeInstanceOf(ThreadBusyError);
    await (held[0] as PromiseFulfilledResult<{ release(): Promise<void> }>).value.release();
    const again = await leases.acquireThread({ threadId });
    await again.release();
  });

  it('waits for a holder that releases within waitMs', async () => {
    const first = await leases.acquireThread({ threadId: 'wait' });
    const second = leases.acquireThread({ threadId: 'wait', waitMs: 10_000 });
    await first.release();
    await (await second).release();
  });

  it('takes over the lease of a dead process on this host, and of another host once expired', async () => {
    await (await leases.acquireThread({ threadId: 'create' })).release();
    await driver.run(
      `INSERT INTO ${table} (thread_id, token, host, pid, expires_at) VALUES (?, ?, ?, ?, ?)`,
      ['crashed', 'old-token', hostname(), deadPid(), Date.now() + 60_000],
    );
    await (await leases.acquireThread({ threadId: 'crashed' })).release();

    const far = (expiresAt: number) =>
      driver.run(`INSERT INTO ${table} (thread_id, token, host, pid, expires_at) VALUES (?, ?, ?, ?, ?)`, [
        `far-${expiresAt}`,
        'far-token',
        `not-${hostname()}`,
        1,
        expiresAt,
      ]);
    const live = Date.now() + 60_000;
    await far(live);
    await expect(leases.acquireThread({ threadId: `far-${live}` })).rejects.toMatchObject({
      code: 'conflict',
      details: { reason: 'thread-busy', holder: `process 1 on not-${hostname()}` },
    });
    const expired = Date.now() - 1;
    await far(expired);
    await (await leases.acquireThread({ threadId: `far-${expired}` })).release();
  });
});
