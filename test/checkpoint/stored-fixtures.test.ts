import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { PostgresSaver } from '../../src/runtime/checkpoint/postgres-saver.ts';
import { sqliteRecordFormats } from '../../src/runtime/checkpoint/saver-scenarios.test-support.ts';
import { SqliteSaver } from '../../src/runtime/checkpoint/sqlite-saver.ts';
import { type FixtureContents, readFixtureContents } from '../fixtures/checkpoints/fixture-scenario.ts';

/**
 * Every fixture in `test/fixtures/checkpoints` (written by `npm run fixtures:checkpoints` with
 * the savers of its day, kept when the format moves on) is read by today's savers and must
 * give exactly what it gave then: a change of a codec constant, a dictionary, a window or a
 * table layout that breaks data already stored fails here.
 */
const folder = new URL('../fixtures/checkpoints/', import.meta.url).pathname;
const fixtures = readdirSync(folder)
  .filter((file) => /^layout-\d+-format-\d+\.json$/u.test(file))
  .map((file) => file.slice(0, -'.json'.length));
const url = inject('pgUrl');
const directory = mkdtempSync(join(tmpdir(), 'ctxloom-fixtures-'));
const schemas: string[] = [];

afterAll(async () => {
  rmSync(directory, { recursive: true, force: true });
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
});

interface Fixture {
  writtenBy: string;
  layout: number;
  recordFormat: number;
  sqlite: { recordFormats: Record<string, number>; contents: FixtureContents };
  postgres: { recordFormats: Record<string, number>; contents: FixtureContents };
}

const load = (name: string) => JSON.parse(readFileSync(join(folder, `${name}.json`), 'utf8')) as Fixture;

describe('checkpoint fixtures of every stored format', () => {
  it('covers every record format the savers read: 2 (written by 41c651d), 3, 4 (Brotli) and 5 (chained)', () => {
    const formats = new Set(fixtures.flatMap((name) => Object.keys(load(name).sqlite.recordFormats)));
    expect([...formats].sort()).toEqual(['2', '3', '4', '5']);
  });

  for (const name of fixtures) {
    it(`reads ${name}.db (SQLite) exactly as it was written`, async () => {
      const fixture = load(name);
      const path = join(directory, `${name}.db`);
      copyFileSync(join(folder, `${name}.db`), path);
      expect(sqliteRecordFormats(path)).toEqual(fixture.sqlite.recordFormats);
      const saver = new SqliteSaver({ path, durability: 'normal' });
      try {
        expect(await readFixtureContents(saver)).toEqual(fixture.sqlite.contents);
      } finally {
        await saver.close();
      }
    });

    it(`reads ${name}.postgres.sql (a pg_dump) exactly as it was written`, async () => {
      const fixture = load(name);
      const schema = `ctxloom_fixture_read_${process.pid}_${schemas.length}`;
      schemas.push(schema);
      const dump = readFileSync(join(folder, `${name}.postgres.sql`), 'utf8').replaceAll(
        '__SCHEMA__',
        schema,
      );
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(dump);
        // The dump sets an empty search_path for its session; this client ends here.
      } finally {
        await client.end();
      }
      const saver = new PostgresSaver({ connectionString: url, schema });
      try {
        expect(await readFixtureContents(saver)).toEqual(fixture.postgres.contents);
      } finally {
        await saver.close();
      }
    });
  }
});
