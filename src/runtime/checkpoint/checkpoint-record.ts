import type { Checkpoint } from '@langchain/langgraph-checkpoint';
import {
  type DecodedRecord,
  decodeRecord,
  encodeRecordWithBody,
  type RecordCompression,
} from './record-codec.ts';

/** A checkpoint as stored: everything but its id (a column) and its channel values. */
export type StoredCheckpoint = Omit<Checkpoint, 'channel_values' | 'id'>;

/** Header of one `checkpoints.data` record. */
export interface CheckpointRecordHeader {
  checkpoint: StoredCheckpoint;
  /** Serde type of payload 0 (the metadata). */
  metadataType: string;
  /** Channels whose value is stored in this record, in payload order from payload 1: [channel, serde type]. */
  values: [string, string][];
  /**
   * Where each populated channel's current value lives: the id of the checkpoint (same
   * thread and namespace) whose record stores it, or `''` for this record. A channel with a
   * version but no entry is empty at this checkpoint (delta channels between snapshots,
   * consumed triggers).
   */
  located: Record<string, string>;
}

/** A decoded checkpoint record. */
export interface CheckpointRecord {
  header: CheckpointRecordHeader;
  /** The header's JSON bytes (with the metadata: this record's part of its chain's header text). */
  headerBytes: Uint8Array;
  metadata: Uint8Array;
  /** Channel → [serde type, serialised value] stored in this record. */
  values: Map<string, [string, Uint8Array]>;
}

/** Encodes one checkpoint record, deflated against `dictionary` (its chain) when given. */
export function encodeCheckpointRecord(options: EncodeCheckpointOptions): Uint8Array {
  return encodeCheckpointRecordWithRecord(options).bytes;
}

/** {@link encodeCheckpointRecord}, also returning the record as decoding it would. */
export function encodeCheckpointRecordWithRecord(options: EncodeCheckpointOptions): {
  bytes: Uint8Array;
  record: CheckpointRecord;
} {
  const entries = [...options.values];
  const header: CheckpointRecordHeader = {
    checkpoint: options.checkpoint,
    metadataType: options.metadata[0],
    values: entries.map(([channel, [type]]) => [channel, type]),
    located: options.located,
  };
  const { bytes, decoded } = encodeRecordWithBody({
    header: toRelative(header),
    payloads: [options.metadata[1], ...entries.map(([, [, bytes]]) => bytes)],
    compression: options.compression,
    ...(options.dictionary === undefined ? {} : { dictionary: options.dictionary }),
    ...(options.parentWrites === undefined ? {} : { count: options.parentWrites }),
  });
  return { bytes, record: recordOf(decoded) };
}

/** Options of {@link encodeCheckpointRecord}. */
export interface EncodeCheckpointOptions {
  checkpoint: StoredCheckpoint;
  metadata: [string, Uint8Array];
  values: Map<string, [string, Uint8Array]>;
  located: Record<string, string>;
  compression: RecordCompression;
  dictionary?: Uint8Array;
  /** How many of the parent's regular pending writes the dictionary includes. */
  parentWrites?: number;
}

/** Decodes one checkpoint record (`dictionary`: its chain's, when the record is chained). */
export function decodeCheckpointRecord(bytes: Uint8Array, dictionary?: Uint8Array): CheckpointRecord {
  return recordOf(decodeRecord<RelativeHeader>(bytes, dictionary));
}

function recordOf(decoded: DecodedRecord<RelativeHeader>): CheckpointRecord {
  const { payloads } = decoded;
  const header = fromRelative(decoded.header);
  const values = new Map<string, [string, Uint8Array]>();
  header.values.forEach(([channel, type], index) => {
    values.set(channel, [type, payloads[index + 1] ?? new Uint8Array()]);
  });
  return { header, headerBytes: decoded.headerBytes, metadata: payloads[0] ?? new Uint8Array(), values };
}

/**
 * The stored form of a header. Version numbers grow with the thread, so they are stored
 * relative to one top value per record (`versionTop`): the same step of every turn then
 * stores the same small offsets, which the chain dictionary compresses to almost nothing.
 */
type RelativeHeader = CheckpointRecordHeader & { versionTop?: number };

function isInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value);
}

function toRelative(header: CheckpointRecordHeader): RelativeHeader {
  const { checkpoint } = header;
  const versions = [
    ...Object.values(checkpoint.channel_versions),
    ...Object.values(checkpoint.versions_seen).flatMap((seen) => Object.values(seen)),
  ];
  if (versions.length === 0 || !versions.every(isInteger)) return header;
  const top = Math.max(...versions);
  const relative = (map: Record<string, string | number>) =>
    Object.fromEntries(Object.entries(map).map(([key, value]) => [key, top - Number(value)]));
  return {
    ...header,
    versionTop: top,
    checkpoint: {
      ...checkpoint,
      channel_versions: relative(checkpoint.channel_versions),
      versions_seen: Object.fromEntries(
        Object.entries(checkpoint.versions_seen).map(([node, seen]) => [node, relative(seen)]),
      ),
    },
  };
}

function fromRelative(stored: RelativeHeader): CheckpointRecordHeader {
  const { versionTop, ...header } = stored;
  if (versionTop === undefined) return header;
  const absolute = (map: Record<string, string | number>) =>
    Object.fromEntries(Object.entries(map).map(([key, value]) => [key, versionTop - Number(value)]));
  return {
    ...header,
    checkpoint: {
      ...header.checkpoint,
      channel_versions: absolute(header.checkpoint.channel_versions),
      versions_seen: Object.fromEntries(
        Object.entries(header.checkpoint.versions_seen).map(([node, seen]) => [node, absolute(seen)]),
      ),
    },
  };
}
