import type pg from 'pg';

/** Bytes of every relation in `schema`: tables with all forks, indexes and TOAST, and sequences. */
export async function schemaBytes(pool: pg.Pool, schema: string): Promise<number> {
  const rows = await pool.query(
    `SELECT coalesce(sum(CASE WHEN c.relkind = 'r' THEN pg_total_relation_size(c.oid) ELSE pg_relation_size(c.oid) END), 0) AS size
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'S')`,
    [schema],
  );
  return Number(rows.rows[0]?.size ?? 0);
}

/**
 * Where the saver's bytes went: each relation's forks (`pg_relation_size`), then the heap's
 * rows — count, live tuple bytes (`pg_column_size` of each row, header included) and the
 * record payload — so free space and dead row versions show as the heap's remainder.
 */
export async function postgresBreakdown(pool: pg.Pool, schema: string): Promise<string[]> {
  const relations = await pool.query(
    `SELECT c.relname, pg_relation_size(c.oid, 'main') AS main, pg_relation_size(c.oid, 'fsm') AS fsm,
            pg_relation_size(c.oid, 'vm') AS vm
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1
         OR c.oid IN (SELECT reltoastrelid FROM pg_class t JOIN pg_namespace tn ON tn.oid = t.relnamespace WHERE tn.nspname = $1)
         OR c.oid IN (SELECT i.indexrelid FROM pg_index i JOIN pg_class t ON t.reltoastrelid = i.indrelid
                        JOIN pg_namespace tn ON tn.oid = t.relnamespace WHERE tn.nspname = $1)
      ORDER BY c.relname`,
    [schema],
  );
  const rows = await pool.query(
    `SELECT count(*) AS rows, sum(pg_column_size(c.*)) AS tuples,
            sum(coalesce(length(c.data), 0)) AS data, sum(coalesce(length(c.writes), 0)) AS writes
       FROM "${schema}".ctxloom_cp_checkpoints c`,
  );
  const heap = rows.rows[0] ?? {};
  return [
    ...relations.rows.map(
      (row) =>
        `${String(row.relname).replace(/^pg_toast_\d+/, 'toast')} main ${row.main} B, free-space map ${row.fsm} B, visibility map ${row.vm} B`,
    ),
    `checkpoints heap: ${heap.rows} rows, ${heap.tuples} B of live tuples, payload ${Number(heap.data) + Number(heap.writes)} B (records ${heap.data} B, pending writes ${heap.writes} B)`,
  ];
}
