import { decodeRecord, encodeRecord, type RecordCompression } from './record-codec.ts';

/** One stored pending write with its task. */
export interface StoredWrite {
  taskId: string;
  taskPath: string;
  idx: number;
  channel: string;
  type: string;
  bytes: Uint8Array;
}

/** Header of a `checkpoints.writes` record: the tasks [id, path] and each write [task index, idx, channel, type]. */
interface WritesRecordHeader {
  t: [string, string][];
  w: [number, number, string, string][];
}

/**
 * Encodes all pending writes of one checkpoint, in log order. Regular writes (idx ≥ 0) are
 * only ever appended, so the first n of them are immutable: a child checkpoint's chain
 * dictionary may include them (see {@link regularWriteBytes}).
 */
export function encodeWritesRecord(options: {
  writes: readonly StoredWrite[];
  compression: RecordCompression;
  /** The checkpoint's chain dictionary including its own record; omit for a placeholder. */
  dictionary?: Uint8Array;
}): Uint8Array {
  const tasks = new Map<string, number>();
  const header: WritesRecordHeader = { t: [], w: [] };
  for (const write of options.writes) {
    let task = tasks.get(write.taskId);
    if (task === undefined) {
      task = header.t.length;
      tasks.set(write.taskId, task);
      header.t.push([write.taskId, write.taskPath]);
    }
    header.w.push([task, write.idx, write.channel, write.type]);
  }
  return encodeRecord({
    header,
    payloads: options.writes.map((write) => write.bytes),
    compression: options.compression,
    ...(options.dictionary === undefined ? {} : { dictionary: options.dictionary }),
  });
}

/** Decodes what {@link encodeWritesRecord} wrote. */
export function decodeWritesRecord(bytes: Uint8Array, dictionary?: Uint8Array): StoredWrite[] {
  const { header, payloads } = decodeRecord<WritesRecordHeader>(bytes, dictionary);
  return header.w.map(([task, idx, channel, type], index) => {
    const [taskId, taskPath] = header.t[task] ?? ['', ''];
    return { taskId, taskPath, idx, channel, type, bytes: payloads[index] ?? new Uint8Array() };
  });
}

/**
 * Merges incoming writes of one task into a checkpoint's log: regular writes are insert-once
 * per (task, idx) and appended (a retried task must not double them); special writes
 * (errors, interrupts: negative idx) replace the previous one in place.
 */
export function mergeWrites(
  log: readonly StoredWrite[],
  incoming: readonly StoredWrite[],
  taskPath: string | undefined,
): StoredWrite[] {
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
  if (taskPath === undefined) return out;
  const taskId = incoming[0]?.taskId;
  return out.map((write) => (write.taskId === taskId ? { ...write, taskPath } : write));
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
