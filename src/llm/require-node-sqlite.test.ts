import { describe, expect, it } from 'vitest';
import { requireNodeSqlite } from './require-node-sqlite.ts';

// Its refusal on a Node.js without `node:sqlite` runs on Node 20: test/old-node/.
describe('requireNodeSqlite', () => {
  it("loads Node's built-in node:sqlite once, at the first call", () => {
    const sqlite = requireNodeSqlite({ feature: 'the test' });
    const database = new sqlite.DatabaseSync(':memory:');
    expect(database.prepare('SELECT 1 + 1 AS two').get()).toEqual({ two: 2 });
    database.close();
    expect(requireNodeSqlite({ feature: 'another test' })).toBe(sqlite);
  });
});
