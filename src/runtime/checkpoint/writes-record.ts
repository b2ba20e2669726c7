import { hash as digestOf } from 'node:crypto';
import {
  type DecodedRecord,
  decodeRecord,
  encodeRecord,
  type RecordCompression,
  recordBody,
} from './record-codec.ts';

/** One stored pending write with its task. */
export interface StoredWrite {
  taskId: string;
  taskPath: string;
  idx: number;
  channel: string;
  type: string;
  bytes: Uint8Array;
}

/**
 * Header of a `checkpoints.writes` record: the tasks — `[id, path]`, or `[node, path, trigger]`
 * when the id is LangGraph's pull-task id of that node and trigger (see {@link TaskIds}) — and
 * each write `[task index, idx, channel, type]`.
 */
interface WritesRecordHeader {
  t: ([string, string] | [string, string, string])[];
  w: [number, number, string, string][];
}

/**
 * What LangGraph derives a pull task's id from, besides its node and trigger: the checkpoint
 * id and the step the task runs in (the checkpoint's `metadata.step` + 1), in the root
 * namespace — `uuid5(JSON.stringify([node, step, node, "__pregel_pull", [trigger]]), id)`.
 * A task whose id is that of a candidate node and trigger stores those two names instead of
 * 36 characters of hash; any other id (subgraphs, pushes, other LangGraph versions) is
 * stored whole. Checked on encode, so a miss only costs bytes.
 */
export interface TaskIds {
  checkpointId: string;
  step: number;
  /** The checkpoint's channels: the triggers tried, and `branch:to:<node>` names the nodes tried. */
  channels: readonly string[];
  /** Nodes that have run (`versions_seen`), also tried. */
  nodes: readonly string[];
}

function pullTaskId(ids: TaskIds, node: string, trigger: string): string {
  return uuid5(JSON.stringify([node, String(ids.step), node, '__pregel_pull', [trigger]]), ids.checkpointId);
}

let lastNamespace = '';
let lastNamespaceBytes = Buffer.alloc(16);

/** A UUID's 16 bytes (the last one converted is kept: a record's tasks share one checkpoint id). */
function uuidBytes(uuid: string): Buffer {
  if (uuid !== lastNamespace) {
    lastNamespaceBytes = Buffer.from(uuid.replace(/-/g, ''), 'hex');
    lastNamespace = uuid;
  }
  return lastNamespaceBytes;
}

/** RFC 4122 version-5 UUID, as LangGraph's `uuid5` (node:crypto's SHA-1: ~30× faster than its JavaScript one). */
export function uuid5(name: string, namespace: string): string {
  const space = uuidBytes(namespace);
  const input = Buffer.allocUnsafe(16 + Buffer.byteLength(name, 'utf8'));
  space.copy(input, 0);
  input.write(name, 16, 'utf8');
  const hash = digestOf('sha1', input, 'buffer');
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const BRANCH = 'branch:to:';

function compactTask(
  ids: TaskIds | undefined,
  taskId: string,
  taskPath: string,
): [string, string] | [string, string, string] {
  if (ids === undefined || !isUuid(ids.checkpointId)) return [taskId, taskPath];
  const nodes = new Set(ids.nodes);
  for (const channel of ids.channels) if (channel.startsWith(BRANCH)) nodes.add(channel.slice(BRANCH.length));
  // The usual trigger first (a node's branch channel, or `__start__` for the input), then any channel.
  for (const node of nodes) {
    const usual = node === '__start__' ? '__start__' : `${BRANCH}${node}`;
    if (ids.channels.includes(usual) && pullTaskId(ids, node, usual) === taskId)
      return [node, taskPath, usual];
  }
  for (const node of nodes) {
    for (const trigger of ids.channels) {
      if (pullTaskId(ids, node, trigger) === taskId) return [node, taskPath, trigger];
    }
  }
  return [taskId, taskPath];
}

function isUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}

/**
 * Encodes all pending writes of one checkpoint, in log order. Regular writes (idx ≥ 0) are
 * only ever appended, so the first n of them are immutable: a child checkpoint's chain
 * dictionary may include them (see {@link regularWriteBytes}).
 */
export async function encodeWritesRecord(options: {
  writes: readonly StoredWrite[];
  compression: RecordCompression;
  /** The checkpoint's chain dictionary including its own record; omit for a placeholder. */
  dictionary?: Uint8Array;
  /** How task ids derive from the checkpoint (omit: every id stored whole). */
  ids?: TaskIds;
}): Promise<Uint8Array> {
  return encodeRecord({
    header: writesHeader(options.writes, options.ids),
    payloads: options.writes.map((write) => write.bytes),
    compression: options.compression,
    ...(options.dictionary === undefined ? {} : { dictionary: options.dictionary }),
  });
}

/**
 * The body {@link encodeWritesRecord} compresses for these writes: what a child's chain
 * includes of its parent's first regular writes (`chain-text.ts`), so that the next writes
 * record, much like it, finds it in its dictionary.
 */
export function writesBody(writes: readonly StoredWrite[], ids?: TaskIds): Uint8Array {
  return recordBody(
    writesHeader(writes, ids),
    writes.map((write) => write.bytes),
  );
}

function writesHeader(writes: readonly StoredWrite[], ids: TaskIds | undefined): WritesRecordHeader {
  // A task's writes may carry different paths (each keeps the one it was put with): one entry per pair.
  const tasks = new Map<string, number>();
  const header: WritesRecordHeader = { t: [], w: [] };
  for (const write of writes) {
    const key = `${write.taskId}\u0000${write.taskPath}`;
    let task = tasks.get(key);
    if (task === undefined) {
      task = header.t.length;
      tasks.set(key, task);
      header.t.push(compactTask(ids, write.taskId, write.taskPath));
    }
    header.w.push([task, write.idx, write.channel, write.type]);
  }
  return header;
}

/** Decodes what {@link encodeWritesRecord} wrote (`ids` as it was given). */
export function decodeWritesRecord(bytes: Uint8Array, dictionary?: Uint8Array, ids?: TaskIds): StoredWrite[] {
  return writesOf(decodeRecord<WritesRecordHeader>(bytes, dictionary), ids);
}

/** The writes of a decoded writes record (`ids` as it was encoded with). */
export function writesOf(decoded: DecodedRecord<unknown>, ids?: TaskIds): StoredWrite[] {
  const { header, payloads } = decoded as DecodedRecord<WritesRecordHeader>;
  const tasks = header.t.map(([id, taskPath, trigger]): [string, string] => {
    if (trigger === undefined) return [id, taskPath];
    if (ids === undefined) throw new Error('writes record needs its checkpoint to decode task ids');
    return [pullTaskId(ids, id, trigger), taskPath];
  });
  return header.w.map(([task, idx, channel, type], index) => {
    const [taskId, taskPath] = tasks[task] ?? ['', ''];
    return { taskId, taskPath, idx, channel, type, bytes: payloads[index] ?? new Uint8Array() };
  });
}

/**
 * Merges incoming writes of one task into a checkpoint's log, as LangGraph's `MemorySaver`
 * does: regular writes are insert-once per (task, idx) and appended (a retried task must not
 * double them), each keeping the task path it came with; special writes (errors, interrupts:
 * negative idx) replace the previous one in place. A regular write never changes once stored:
 * a child's history holds its parent's first regular writes as stored (`chain-text.ts`).
 */
export function mergeWrites(log: readonly StoredWrite[], incoming: readonly StoredWrite[]): StoredWrite[] {
  const out = [...log];
  const position = new Map(out.map((write, index) => [`${write.taskId}\u0000${write.idx}`, index]));
  for (const write of incoming) {
    const key = `${write.taskId}\u0000${write.idx}`;
    const at = position.get(key);
    if (at !== undefined) {
      if (write.idx < 0) out[at] = write;
      continue;
    }
    position.set(key, out.length);
    out.push(write);
  }
  return out;
}

/** Number of regular writes (idx ≥ 0) in a log. */
export function regularWriteCount(log: readonly StoredWrite[]): number {
  return log.filter((write) => write.idx >= 0).length;
}

/** The first `count` regular writes of a log: the part a child's chain includes. */
export function regularWrites(log: readonly StoredWrite[], count: number): StoredWrite[] {
  const out: StoredWrite[] = [];
  for (const write of log) {
    if (out.length >= count) break;
    if (write.idx >= 0) out.push(write);
  }
  return out;
}
