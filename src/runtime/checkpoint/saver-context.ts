import type { SerializerProtocol } from '@langchain/langgraph-checkpoint';
import type { CheckpointTables } from './checkpoint-schema.ts';
import type { RecordCompression } from './record-codec.ts';
import type { SnapshotMemo } from './snapshot-diff.ts';

/** What the storage helpers need from their saver. */
export interface SaverContext {
  tables: CheckpointTables;
  serde: SerializerProtocol;
  compression: RecordCompression;
  /** Recent delta-channel snapshots (bases of the next difference, decoded chains). */
  snapshots?: SnapshotMemo;
}
