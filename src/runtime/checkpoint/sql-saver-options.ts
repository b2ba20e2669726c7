import type { SerializerProtocol } from '@langchain/langgraph-checkpoint';
import type { CheckpointTables } from './checkpoint-schema.ts';
import type { RecordCompression } from './record-codec.ts';
import type { SqlDriver } from './sql-driver.ts';

/** Options shared by the SQL savers. */
export interface SqlCheckpointSaverOptions {
  driver: SqlDriver;
  tables: CheckpointTables;
  /** PostgreSQL schema to create the tables in. */
  schema?: string;
  /** Record compression. Default `deflate`. */
  compression?: RecordCompression;
  /** Serializer for values and metadata. Default LangGraph's JsonPlusSerializer. */
  serde?: SerializerProtocol;
}

/** Options of {@link SqlCheckpointSaver.prune}. */
export interface PruneOptions {
  /** Checkpoints to keep per thread and namespace, newest first. Integer ≥ 1. */
  keepLast: number;
  /** Prune only this thread. Default: every thread. */
  threadId?: string;
}

/** What {@link SqlCheckpointSaver.prune} removed. */
export interface PruneResult {
  deletedCheckpoints: number;
  deletedWrites: number;
}
