import type { Checkpoint } from '@langchain/langgraph-checkpoint';
import { applyJson, checkedPatch, type JsonPatch } from './json-patch.ts';
import {
  type DecodedRecord,
  decodeRecord,
  encodeRecordWithBody,
  type RecordCompression,
} from './record-codec.ts';
import type { TaskIds } from './writes-record.ts';

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
  /** The record's body as stored, uncompressed: its part of its path's history (`chain-text.ts`). */
  body: Uint8Array;
  metadata: Uint8Array;
  /** Channel → [serde type, serialised value] stored in this record. */
  values: Map<string, [string, Uint8Array]>;
}

/** Encodes one checkpoint record, deflated against `dictionary` (its chain) when given. */
export async function encodeCheckpointRecord(options: EncodeCheckpointOptions): Promise<Uint8Array> {
  return (await encodeCheckpointRecordWithRecord(options)).bytes;
}

/** {@link encodeCheckpointRecord}, also returning the record as decoding it would. */
export async function encodeCheckpointRecordWithRecord(options: EncodeCheckpointOptions): Promise<{
  bytes: Uint8Array;
  record: CheckpointRecord;
}> {
  const entries = [...options.values];
  const header: CheckpointRecordHeader = {
    checkpoint: options.checkpoint,
    metadataType: options.metadata[0],
    values: entries.map(([channel, [type]]) => [channel, type]),
    located: options.located,
  };
  let stored: StoredHeader = toRelative(header);
  let metadata = options.metadata[1];
  const { parent } = options;
  if (parent !== undefined) {
    // Chained to its parent: the header (and JSON metadata) as a patch of the parent's.
    // Key order of versions and locations means nothing; the metadata's bytes must come back exact.
    const patched: PatchedHeader = {
      p: checkedPatch(parent.record.header, header, parent.id, false) ?? { o: {} },
    };
    const meta = exactJson(header.metadataType, metadata);
    const parentMeta = metaOf(parent.record);
    if (meta !== undefined && parentMeta !== undefined) {
      const patch = checkedPatch(parentMeta.value, meta, parent.id, true);
      patched.mj = 1;
      if (patch !== undefined) patched.m = patch;
      metadata = new Uint8Array();
    }
    stored = patched;
  }
  const { bytes, decoded } = await encodeRecordWithBody({
    header: stored,
    payloads: [metadata, ...entries.map(([, [, bytes]]) => bytes)],
    compression: options.compression,
    ...(options.dictionary === undefined ? {} : { dictionary: options.dictionary }),
    ...(options.parentWrites === undefined ? {} : { count: options.parentWrites }),
  });
  return { bytes, record: recordOf(decoded, parent) };
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
  /** The parent's id and record, when this record is chained to it: the header is stored as a patch of the parent's. */
  parent?: ParentRecord;
}

/** A chained record's parent: its checkpoint id and decoded record. */
export interface ParentRecord {
  id: string;
  record: CheckpointRecord;
}

/**
 * Inflates one checkpoint record (`dictionary`: its chain's, when the record is chained).
 * When {@link needsParent}, finish it with the parent's record in {@link recordFromStored}.
 */
export function decodeStoredRecord(bytes: Uint8Array, dictionary?: Uint8Array): DecodedRecord<StoredHeader> {
  return decodeRecord<StoredHeader>(bytes, dictionary);
}

/** True when a decoded record's header is a patch of its parent's. */
export function needsParent(decoded: DecodedRecord<StoredHeader>): boolean {
  return 'p' in decoded.header;
}

/** The checkpoint record of {@link decodeStoredRecord}'s result (`parent` when {@link needsParent}). */
export function recordFromStored(
  decoded: DecodedRecord<StoredHeader>,
  parent?: ParentRecord,
): CheckpointRecord {
  return recordOf(decoded, parent);
}

/** Decodes one self-contained or chained checkpoint record. */
export function decodeCheckpointRecord(
  bytes: Uint8Array,
  dictionary?: Uint8Array,
  parent?: ParentRecord,
): CheckpointRecord {
  return recordOf(decodeRecord<StoredHeader>(bytes, dictionary), parent);
}

function recordOf(decoded: DecodedRecord<StoredHeader>, parent: ParentRecord | undefined): CheckpointRecord {
  const { payloads } = decoded;
  const stored = decoded.header;
  let header: CheckpointRecordHeader;
  let metadata = payloads[0] ?? new Uint8Array();
  if ('p' in stored) {
    if (parent === undefined) throw new Error('record needs its parent record to decode');
    header = applyJson(parent.record.header, stored.p, parent.id) as CheckpointRecordHeader;
    if (stored.mj === 1) {
      const parentMeta = metaOf(parent.record);
      if (parentMeta === undefined) throw new Error('record needs its parent metadata to decode');
      metadata = Buffer.from(JSON.stringify(applyJson(parentMeta.value, stored.m, parent.id)));
    }
  } else {
    header = fromRelative(stored);
  }
  const values = new Map<string, [string, Uint8Array]>();
  header.values.forEach(([channel, type], index) => {
    values.set(channel, [type, payloads[index + 1] ?? new Uint8Array()]);
  });
  return { header, headerBytes: decoded.headerBytes, body: decoded.body, metadata, values };
}

/** How a record stores its header: whole (versions relative to `versionTop`), or as a patch of its parent's. */
export type StoredHeader = RelativeHeader | PatchedHeader;

/**
 * A chained record's header: patches of its parent's header and JSON metadata. With `mj`
 * payload 0 is empty and the metadata is the parent's patched with `m` (absent: equal).
 */
interface PatchedHeader {
  p: JsonPatch;
  mj?: 1;
  m?: JsonPatch;
}

const parsedMetadata = new WeakMap<CheckpointRecord, { value: unknown } | null>();

/** A record's metadata parsed (undefined when it is not JSON that writes back to the same bytes). */
function metaOf(record: CheckpointRecord): { value: unknown } | undefined {
  let meta = parsedMetadata.get(record);
  if (meta === undefined) {
    const value = exactJson(record.header.metadataType, record.metadata);
    meta = value === undefined ? null : { value };
    parsedMetadata.set(record, meta);
  }
  return meta ?? undefined;
}

/** JSON metadata parsed, when writing it back gives exactly the same bytes. */
function exactJson(type: string, bytes: Uint8Array): unknown {
  if (type !== 'json' || bytes.byteLength === 0) return undefined;
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  try {
    const value: unknown = JSON.parse(text);
    return JSON.stringify(value) === text ? value : undefined;
  } catch {
    return undefined;
  }
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

/**
 * How the ids of a checkpoint's pull tasks derive from it (see `writes-record.ts`), or
 * undefined when its metadata has no step.
 */
export function taskIdsOf(checkpointId: string, record: CheckpointRecord): TaskIds | undefined {
  const meta = metaOf(record)?.value as { step?: unknown } | undefined;
  if (typeof meta?.step !== 'number' || !Number.isSafeInteger(meta.step)) return undefined;
  const { checkpoint } = record.header;
  return {
    checkpointId,
    step: meta.step + 1,
    channels: Object.keys(checkpoint.channel_versions),
    nodes: Object.keys(checkpoint.versions_seen),
  };
}
