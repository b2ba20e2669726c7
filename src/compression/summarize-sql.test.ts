import { describe, expect, it } from 'vitest';
import { summarizeSql } from './summarize-sql.ts';

describe('summarizeSql', () => {
  it('finds written and read tables, ignoring CTEs, comments and string literals', () => {
    const sql = `-- daily orders
      CREATE TABLE IF NOT EXISTS dw.orders_daily (dt string, amount decimal);
      WITH paid AS (SELECT * FROM ods.orders WHERE status = 'from secret.table')
      INSERT OVERWRITE TABLE dw.orders_daily
      SELECT p.dt, sum(p.amount) FROM paid p JOIN dim.users u ON p.uid = u.id GROUP BY p.dt;`;
    expect(summarizeSql(sql)).toEqual({
      statements: 2,
      verbs: ['CREATE', 'WITH'],
      writes: ['dw.orders_daily'],
      reads: ['ods.orders', 'dim.users'],
    });
  });

  it('handles an empty script', () => {
    expect(summarizeSql('  ;  ')).toEqual({ statements: 0, verbs: [], writes: [], reads: [] });
  });
});
