/** What {@link summarizeSql} reads from a SQL script. */
export interface SqlSummary {
  statements: number;
  /** Statement verbs in order, e.g. `['CREATE', 'INSERT']`. */
  verbs: string[];
  /** Tables written (INSERT/CREATE/MERGE/UPDATE/DELETE targets), first occurrence order. */
  writes: string[];
  /** Tables read (FROM/JOIN/USING), excluding ones also written and CTE names. */
  reads: string[];
}

const NAME = String.raw`([A-Za-z_][\w$]*(?:\.[A-Za-z_][\w$]*)*)`;
const WRITE = new RegExp(
  String.raw`\b(?:INSERT\s+(?:INTO|OVERWRITE)(?:\s+TABLE)?|CREATE\s+(?:OR\s+REPLACE\s+)?(?:TEMP(?:ORARY)?\s+)?(?:TABLE|VIEW)(?:\s+IF\s+NOT\s+EXISTS)?|MERGE\s+INTO|UPDATE|DELETE\s+FROM|TRUNCATE\s+TABLE)\s+${NAME}`,
  'giu',
);
const READ = new RegExp(String.raw`\b(?:FROM|JOIN|USING)\s+${NAME}`, 'giu');
const CTE = new RegExp(String.raw`(?:\bWITH|,)\s*${NAME}\s+AS\s*\(`, 'giu');
const VERB = /^\s*(?:--[^\n]*\n\s*)*([A-Za-z]+)/u;

/**
 * A lexical summary of a SQL script for the artifact index: statement count, verbs, tables
 * written and read. Comments and string literals are removed first; the parse is a
 * documented approximation (no grammar), good enough to index and never used to execute.
 */
export function summarizeSql(sql: string): SqlSummary {
  const code = sql
    .replace(/--[^\n]*/gu, ' ')
    .replace(/\/\*[\s\S]*?\*\//gu, ' ')
    .replace(/'(?:[^']|'')*'/gu, "''");
  const statements = code.split(';').filter((statement) => statement.trim().length > 0);
  const verbs = statements.map((statement) => (VERB.exec(statement)?.[1] ?? '?').toUpperCase());
  const ctes = new Set([...code.matchAll(CTE)].map((match) => (match[1] as string).toLowerCase()));
  const writes = unique([...code.matchAll(WRITE)].map((match) => match[1] as string));
  const written = new Set(writes.map((name) => name.toLowerCase()));
  const reads = unique(
    [...code.matchAll(READ)]
      .map((match) => match[1] as string)
      .filter((name) => !ctes.has(name.toLowerCase()) && !written.has(name.toLowerCase())),
  );
  return { statements: statements.length, verbs, writes, reads };
}

function unique(names: string[]): string[] {
  const seen = new Set<string>();
  return names.filter((name) => {
    const key = name.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
