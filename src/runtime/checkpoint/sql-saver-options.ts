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
  /**
   * Serializer for values and metadata. Default `CheckpointSerializer`: LangGraph's
   * JsonPlusSerializer (same bytes, same values) with a synchronous reviver (decision 038).
   */
  serde?: SerializerProtocol;
  /** How a delta channel's periodic snapshot is stored; see {@link SnapshotStorage}. Default `difference`. */
  snapshots?: SnapshotStorage;
  /**
   * Bytes of decoded channel histories the saver keeps for the threads in use, all threads
   * together (weighed by the bytes they were decoded from; a thread's next turn decodes only
   * the rows added since). Default 256 MiB (`HISTORY_CACHE_BYTES`, decision 080); 0 keeps only
   * the thread read last.
   */
  historyCacheBytes?: number;
}

/**
 * How a delta channel's `DeltaSnapshot` (LangGraph writes one every `snapshotFrequency`
 * updates) is stored (decision 035):
 * - `difference` — the items appended since the previous snapshot. Each message is stored
 *   twice (its write and one snapshot): about 2 × raw on long threads, and a cold load (a new
 *   process's first read of a thread) replays only the rows since the last snapshot, then
 *   reads the list from the chain of differences (dynamic process: ~0.1 s of CPU at 1 000
 *   turns, ~1 s at 5 000 here).
 * - `reference` — a ~200-byte reference to the writes the snapshot summarises: each message
 *   is stored once (1.1–1.9 × raw), and a cold load replays every row of the thread — it grows
 *   with the thread's rows (about 1.2 s of CPU at 1 000 turns, 7.6 s at 5 000). Later reads
 *   in the same process use the cached head either way.
 */
export type SnapshotStorage = 'difference' | 'reference';

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
