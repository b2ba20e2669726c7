// Bench only. The official SqliteSaver (@langchain/langgraph-checkpoint-sqlite) is written
// against better-sqlite3, a native addon this project does not install. It uses five of its
// methods — pragma, exec, prepare(...).run/get/all, transaction — which map onto Node's
// built-in node:sqlite (binding undefined as NULL, as better-sqlite3 does), so the official
// saver runs unmodified on this.
import { DatabaseSync } from 'node:sqlite';

export default class Database {
  #db;
  constructor(path) {
    this.#db = new DatabaseSync(path);
  }
  pragma(text) {
    this.#db.exec(`PRAGMA ${text}`);
  }
  exec(sql) {
    this.#db.exec(sql);
    return this;
  }
  prepare(sql) {
    const statement = this.#db.prepare(sql);
    // better-sqlite3 binds undefined as NULL; node:sqlite refuses it.
    const bind = (args) => args.map((arg) => (arg === undefined ? null : arg));
    return {
      run: (...args) => statement.run(...bind(args)),
      get: (...args) => statement.get(...bind(args)),
      all: (...args) => statement.all(...bind(args)),
    };
  }
  transaction(work) {
    return (...args) => {
      this.#db.exec('BEGIN');
      try {
        const result = work(...args);
        this.#db.exec('COMMIT');
        return result;
      } catch (error) {
        this.#db.exec('ROLLBACK');
        throw error;
      }
    };
  }
  close() {
    this.#db.close();
  }
}
