import { randomBytes } from 'node:crypto';
import { hashText } from '../core/fingerprint.ts';

/**
 * The id of the HumanMessage for one user input: `human:<session>:<input>` — the same on
 * every delivery of the input, so a re-sent or replayed input merges instead of
 * duplicating. Long or unusual ids are hashed to keep ids short and printable.
 */
export function humanMessageId(options: { sessionId: string; inputId: string }): string {
  const raw = `${options.sessionId}:${options.inputId}`;
  return /^[\w.:-]{1,120}$/.test(raw) ? `human:${raw}` : `human:${hashText(raw)}`;
}

/** The ledger key of one input: unique per session. */
export function inputKey(options: { sessionId: string; inputId: string }): string {
  return `${options.sessionId}:${options.inputId}`;
}

/** Random bits of this process's ids, drawn once: 62 bits of a UUIDv7's `rand_b`. */
let processBits: Buffer | undefined;
let lastMs = 0;
let sequence = 0;

/**
 * A new id for a message, reply or call record that has none: an RFC 9562 UUIDv7 whose
 * `rand_a` is a counter within the millisecond (method 1) and whose `rand_b` is drawn once
 * per process. Ids of one process sort by creation and differ from the previous one in a few
 * bytes, so a checkpoint saver's compression stores each in ~5 bytes where a random UUID costs
 * 16 — in every record and snapshot that holds the message (decision 039). Unique: two
 * processes share an id only if their 62 random bits meet in the same millisecond.
 */
export function newLocalId(): string {
  processBits ??= randomBytes(8);
  let ms = Date.now();
  if (ms <= lastMs) {
    ms = lastMs;
    sequence += 1;
    // 4 096 ids in one millisecond: borrow the next one, as LangGraph's uuid6 does.
    if (sequence > 0xfff) {
      ms += 1;
      sequence = 0;
    }
  } else sequence = 0;
  lastMs = ms;
  const bytes = Buffer.alloc(16);
  bytes.writeUIntBE(ms, 0, 6);
  bytes.writeUInt16BE(0x7000 | sequence, 6);
  processBits.copy(bytes, 8);
  bytes[8] = 0x80 | ((bytes[8] as number) & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
