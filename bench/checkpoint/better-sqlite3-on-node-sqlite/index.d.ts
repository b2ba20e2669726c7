import type { SQLInputValue } from 'node:sqlite';

/** A prepared statement (undefined parameters bind as NULL). */
export interface Statement {
  run(...params: (SQLInputValue | undefined)[]): unknown;
  get(...params: (SQLInputValue | undefined)[]): Record<string, unknown> | undefined;
  all(...params: (SQLInputValue | undefined)[]): Record<string, unknown>[];
}

/** The part of better-sqlite3's `Database` that @langchain/langgraph-checkpoint-sqlite uses, over node:sqlite. */
export default class Database {
  constructor(path: string);
  pragma(text: string): void;
  exec(sql: string): this;
  prepare(sql: string): Statement;
  transaction<A extends unknown[], R>(work: (...args: A) => R): (...args: A) => R;
  close(): void;
}
