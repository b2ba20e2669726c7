import type { Checkpoint } from '@langchain/langgraph-checkpoint';
import { decodeRecord, encodeRecord, type RecordCompression } from './record-codec.ts';

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
   * Where each populated channel's current value lives: the `seq` of the record, or 0 for
   * this record. A channel with a version but no entry is empty at this checkpoint (delta
   * channels between snapshots, consumed triggers).
   */
  located: Record<string, number>;
  /** Checkpoints since the last self-contained record of this chain (0 = this one is). */
  baseDistance: number;
  /** Channels whose value `prune` moved into this record (not part of {@link ownValuesBytes}). */
  moved?: string[];
}

/** A decoded checkpoint record. */
export interface CheckpointRecord {
  header: CheckpointRecordHeader;
  /** Header JSON + metadata: the dictionary of records that use this one as their base. */
  headerBytes: Uint8Array;
  metadata: Uint8Array;
  /** Channel → [serde type, serialised value] stored in this record. */
  values: Map<string, [string, Uint8Array]>;
}

/** Encodes one checkpoint record. */
export function encodeCheckpointRecord(options: {
  checkpoint: StoredCheckpoint;
  metadata: [string, Uint8Array];
  values: Map<string, [string, Uint8Array]>;
  located: Record<string, number>;
  compression: RecordCompression;
  /** Base record (its header bytes) and this record's distance from it; omit for a base. */
  base?: { headerBytes: Uint8Array; distance: number };
  moved?: readonly string[];
}): Uint8Array {
  const entries = [...options.values];
  const header: CheckpointRecordHeader = {
    checkpoint: options.checkpoint,
    metadataType: options.metadata[0],
    values: entries.map(([channel, [type]]) => [channel, type]),
    located: options.located,
    baseDistance: options.base?.distance ?? 0,
    ...(options.moved === undefined || options.moved.length === 0 ? {} : { moved: [...options.moved] }),
  };
  return encodeRecord({
    header: toRelative(header),
    payloads: [options.metadata[1], ...entries.map(([, [, bytes]]) => bytes)],
    compression: options.compression,
    ...(options.base === undefined ? {} : { base: options.base.headerBytes }),
  });
}

/** Decodes one checkpoint record. */
export function decodeCheckpointRecord(bytes: Uint8Array, base?: Uint8Array): CheckpointRecord {
  const decoded = decodeRecord<RelativeHeader>(bytes, base);
  const { headerBytes, payloads } = decoded;
  const header = fromRelative(decoded.header);
  const values = new Map<string, [string, Uint8Array]>();
  header.values.forEach(([channel, type], index) => {
    values.set(channel, [type, payloads[index + 1] ?? new Uint8Array()]);
  });
  const metadata = payloads[0] ?? new Uint8Array();
  return {
    header,
    headerBytes: Buffer.concat([headerBytes, metadata, ...payloads.slice(1)]),
    metadata,
    values,
  };
}

/**
 * The stored form of a header. Version numbers and record pointers grow with the thread,
 * so they are stored relative to one top value per record (`versionTop`, `locatedTop`):
 * the same step of every turn then stores the same small offsets, which the base-record
 * dictionary compresses to almost nothing.
 */
type RelativeHeader = CheckpointRecordHeader & { versionTop?: number; locatedTop?: number };

function isInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value);
}

function toRelative(header: CheckpointRecordHeader): RelativeHeader {
  const { checkpoint } = header;
  const versions = [
    ...Object.values(checkpoint.channel_versions),
    ...Object.values(checkpoint.versions_seen).flatMap((seen) => Object.values(seen)),
  ];
  const out: RelativeHeader = { ...header };
  if (versions.length > 0 && versions.every(isInteger)) {
    const top = Math.max(...versions);
    const relative = (map: Record<string, string | number>) =>
      Object.fromEntries(Object.entries(map).map(([key, value]) => [key, top - Number(value)]));
    out.versionTop = top;
    out.checkpoint = {
      ...checkpoint,
      channel_versions: relative(checkpoint.channel_versions),
      versions_seen: Object.fromEntries(
        Object.entries(checkpoint.versions_seen).map(([node, seen]) => [node, relative(seen)]),
      ),
    };
  }
  const pointers = Object.values(header.located).filter((seq) => seq !== 0);
  if (pointers.length > 0) {
    const top = Math.max(...pointers);
    out.locatedTop = top;
    out.located = Object.fromEntries(
      Object.entries(header.located).map(([channel, seq]) => [channel, seq === 0 ? 0 : top - seq + 1]),
    );
  }
  return out;
}

function fromRelative(stored: RelativeHeader): CheckpointRecordHeader {
  const { versionTop, locatedTop, ...header } = stored;
  if (versionTop !== undefined) {
    const absolute = (map: Record<string, string | number>) =>
      Object.fromEntries(Object.entries(map).map(([key, value]) => [key, versionTop - Number(value)]));
    header.checkpoint = {
      ...header.checkpoint,
      channel_versions: absolute(header.checkpoint.channel_versions),
      versions_seen: Object.fromEntries(
        Object.entries(header.checkpoint.versions_seen).map(([node, seen]) => [node, absolute(seen)]),
      ),
    };
  }
  if (locatedTop !== undefined) {
    header.located = Object.fromEntries(
      Object.entries(header.located).map(([channel, offset]) => [
        channel,
        offset === 0 ? 0 : locatedTop - offset + 1,
      ]),
    );
  }
  return header;
}

/**
 * The values written at this checkpoint's own step, concatenated: the dictionary its pending
 * writes are deflated against (a graph's input arrives as the `__start__` value and again as
 * the writes of the `__start__` task, so the second copy costs almost nothing).
 */
export function ownValuesBytes(record: CheckpointRecord): Uint8Array | undefined {
  const moved = new Set(record.header.moved ?? []);
  const parts: Uint8Array[] = [];
  for (const [channel, [, bytes]] of record.values) if (!moved.has(channel)) parts.push(bytes);
  return parts.length === 0 ? undefined : Buffer.concat(parts);
}

/** Header of one `writes.data` record: the task path and each write's [idx, channel, serde type]. */
export interface WritesRecordHeader {
  taskPath: string;
  writes: [number, string, string][];
}

/** One stored pending write. */
export interface StoredWrite {
  idx: number;
  channel: string;
  type: string;
  bytes: Uint8Array;
}

/** Encodes the writes of one task. */
export function encodeWritesRecord(options: {
  taskPath: string;
  writes: readonly StoredWrite[];
  compression: RecordCompression;
  /** {@link ownValuesBytes} of the checkpoint the writes belong to, when it is stored. */
  base?: Uint8Array;
}): Uint8Array {
  const header: WritesRecordHeader = {
    taskPath: options.taskPath,
    writes: options.writes.map((write) => [write.idx, write.channel, write.type]),
  };
  return encodeRecord({
    header,
    payloads: options.writes.map((write) => write.bytes),
    compression: options.compression,
    ...(options.base === undefined ? {} : { base: options.base }),
  });
}

/** Decodes the writes of one task. */
export function decodeWritesRecord(
  bytes: Uint8Array,
  base?: Uint8Array,
): { taskPath: string; writes: StoredWrite[] } {
  const { header, payloads } = decodeRecord<WritesRecordHeader>(bytes, base);
  return {
    taskPath: header.taskPath,
    writes: header.writes.map(([idx, channel, type], index) => ({
      idx,
      channel,
      type,
      bytes: payloads[index] ?? new Uint8Array(),
    })),
  };
}
