export { type CheckpointTables, checkpointTables, SCHEMA_VERSION } from './checkpoint/checkpoint-schema.ts';
export { createPostgresDriver, type PostgresDriverOptions } from './checkpoint/postgres-driver.ts';
export { PostgresSaver, type PostgresSaverOptions } from './checkpoint/postgres-saver.ts';
export type { RecordCompression } from './checkpoint/record-codec.ts';
export {
  type PruneOptions,
  type PruneResult,
  SqlCheckpointSaver,
  type SqlCheckpointSaverOptions,
} from './checkpoint/sql-checkpoint-saver.ts';
export type { SqlDriver, SqlExecutor, SqlParam, SqlRow } from './checkpoint/sql-driver.ts';
export {
  createSqliteDriver,
  type SqliteDriverOptions,
  type SqliteDurability,
} from './checkpoint/sqlite-driver.ts';
export { SqliteSaver, type SqliteSaverOptions } from './checkpoint/sqlite-saver.ts';
