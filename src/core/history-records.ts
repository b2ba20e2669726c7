import type { Message } from './message.ts';
import type { MessageFingerprint } from './report.ts';

/**
 * What the compile remembers about one history message object, in one record: its tagged
 * copy (compose), the report's preview of it and its copy's fingerprint. A compile of a
 * session never seen inserts each new message into one `WeakMap` instead of one per memo
 * (each insert into a large `WeakMap` costs about as much as the rest of the memo's work).
 * Each part is checked against the values it was made from, as each memo checked its own
 * entry: a message changed in place is tagged, previewed and hashed again.
 */
export class HistoryRecord {
  /** The message this is the record of (what {@link historyRecordOf} finds it by). */
  readonly source: Message;
  /** The content, metadata, role and name the copy was tagged from (`content` undefined: no copy yet). */
  content: Message['content'] | undefined = undefined;
  metadata: Message['metadata'] = undefined;
  role: Message['role'] | undefined = undefined;
  name: string | undefined = undefined;
  /** The tagged copy (layer `history`), made from the values above. */
  message: Message | undefined = undefined;
  /** The copy's metadata has a `layers` list (what a merged system message carries). */
  merged = false;
  /** The block content the preview was made from, and the preview. */
  previewContent: string | undefined = undefined;
  previewText = '';
  /** The copy's fingerprint, and the copy's content it was made from. */
  fingerprint: MessageFingerprint | undefined = undefined;
  fingerprintContent: Message['content'] | undefined = undefined;

  constructor(source: Message) {
    this.source = source;
  }
}

const records = new WeakMap<Message, HistoryRecord>();

/** The record of history message `message`, if any part of the compile has made one. */
export function historyRecordOf(message: Message): HistoryRecord | undefined {
  return records.get(message);
}

/** Makes `message`'s record `record` (a new one replaces the old one, whose holders keep it). */
export function setHistoryRecord(message: Message, record: HistoryRecord): void {
  records.set(message, record);
}
