import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CtxloomError } from '../core/index.ts';
import { openSharedPool } from './shared-pool.ts';
import { createSharedPoolSource } from './shared-pool-source.ts';
import { makeBudget, makeRequest } from './test-request.test-support.ts';

describe('openSharedPool', () => {
  it('shares only what was published, per namespace, with versions', () => {
    let clock = 0;
    const pool = openSharedPool({ now: () => ++clock });
    pool.publish({
      namespace: 'team/research',
      key: 'db',
      content: 'Use PostgreSQL 16',
      publisher: 'researcher',
    });
    const again = pool.publish({
      namespace: 'team/research',
      key: 'db',
      content: 'Use PostgreSQL 17',
      publisher: 'lead',
    });
    pool.publish({ namespace: 'team/ops', key: 'region', content: 'eu-central', publisher: 'ops' });
    expect(again).toMatchObject({ version: 2, content: 'Use PostgreSQL 17', publisher: 'lead' });
    expect(pool.list(['team/research']).map((entry) => entry.key)).toEqual(['db']);
    expect(pool.retract('team/ops', 'region')).toBe(true);
    expect(pool.list(['team/ops'])).toEqual([]);
  });

  it('rejects malformed namespaces', () => {
    expect(() =>
      openSharedPool().publish({ namespace: 'has space', key: 'k', content: 'c', publisher: 'p' }),
    ).toThrow(/namespace/);
  });

  it('answers a file it cannot open, or one that is not a database, with a storage error naming it', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'ctxloom-shared-pool-'));
    try {
      const notADatabase = join(folder, 'notes.json');
      await writeFile(notADatabase, '{"not": "a database"}\n'.repeat(100));
      for (const path of [join(folder, 'missing', 'pool.db'), folder, notADatabase]) {
        let caught: unknown;
        try {
          openSharedPool({ path });
        } catch (error) {
          caught = error;
        }
        expect(CtxloomError.is(caught, 'storage-error'), `${path}: ${String(caught)}`).toBe(true);
        expect(caught, path).toMatchObject({ file: path });
      }
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});

describe('createSharedPoolSource', () => {
  it('ranks subscribed entries by the query and ignores other namespaces', async () => {
    const pool = openSharedPool();
    pool.publish({ namespace: 'team', key: 'db', content: 'The database is PostgreSQL', publisher: 'a' });
    pool.publish({ namespace: 'team', key: 'ui', content: 'The UI uses React', publisher: 'b' });
    pool.publish({ namespace: 'secret', key: 'db2', content: 'database password rotation', publisher: 'c' });
    const source = createSharedPoolSource({ pool, namespaces: ['team'] });
    const blocks = await source.collect(makeRequest('which database?'), makeBudget(1000));
    expect(blocks.map((block) => block.id)).toEqual(['shared_pool:team/db']);
    expect(blocks[0]?.content).toBe('[team/db by a] The database is PostgreSQL');
  });

  it('falls back to the newest entries when nothing matches', async () => {
    let clock = 0;
    const pool = openSharedPool({ now: () => ++clock });
    pool.publish({ namespace: 'team', key: 'old', content: 'alpha', publisher: 'a' });
    pool.publish({ namespace: 'team', key: 'new', content: 'beta', publisher: 'a' });
    const blocks = await createSharedPoolSource({ pool, namespaces: ['team'] }).collect(
      makeRequest(''),
      makeBudget(1000),
    );
    expect(blocks.map((block) => block.metadata.key)).toEqual(['new', 'old']);
  });
});
