import type { ContextBlock } from './block.ts';
import { collapseWhitespace } from './collapse-whitespace.ts';
import { HistoryRecord, historyRecordOf, setHistoryRecord } from './history-records.ts';
import type { Message } from './message.ts';
import { createTextMemo } from './text-memo.ts';

/** A message's text as the report previews it (parts other than text by their type). */
export function previewOf(message: Message): string {
  return typeof message.content === 'string'
    ? message.content
    : message.content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join(' ');
}

/**
 * The report's preview of a block: its first 120 characters with whitespace collapsed,
 * remembered in the history message's record (checked against the content), by block or,
 * for source blocks, by text. `record`: the block's message's record if the caller holds it
 * (a run's new copies), which spares the lookup; used only if it is that message's.
 */
export function blockPreview(block: ContextBlock, record?: HistoryRecord): string {
  const message = block.metadata.message;
  const content = block.content;
  if (typeof message === 'object' && message !== null) {
    if (record !== undefined && record.source === message) return previewIn(record, content);
    return previewInRecord(message as Message, content);
  }
  if (content.length <= MAX_PREVIEWED_BY_TEXT) {
    // A source makes new blocks of the same texts on every compile (so does the omission
    // notice): their previews are remembered by text alone (a weak entry per new block costs
    // more than it saves).
    return previewByText(content);
  }
  const known = previews.get(block);
  if (known !== undefined && Object.is(known.content, content)) return known.text;
  const text = preview(content);
  previews.set(block, { content, text });
  return text;
}

/**
 * A history block's preview, kept in its message's record (see {@link HistoryRecord}): compose
 * made the record of every message it tagged, so a kept message's preview costs a lookup, not
 * an insert of its own. A message changed in place since is previewed again (its block holds
 * the new text).
 */
function previewInRecord(message: Message, content: string): string {
  let record = historyRecordOf(message);
  if (record === undefined) {
    record = new HistoryRecord(message);
    setHistoryRecord(message, record);
  }
  return previewIn(record, content);
}

/** The preview of `content`, kept in `record` (made again when the content is not the one it was made from). */
function previewIn(record: HistoryRecord, content: string): string {
  if (Object.is(record.previewContent, content)) return record.previewText;
  const text = preview(content);
  record.previewContent = content;
  record.previewText = text;
  return text;
}

/** The preview of a source text, remembered by text (bounded, see {@link previewsByText}). */
function previewByText(content: string): string {
  return previewsByText.get(content, preview);
}

/**
 * Previews of source texts by text (see {@link blockPreview}); cleared when 4,096 texts
 * or 4 Mi characters are kept; texts over 256 Ki characters are previewed each time.
 */
const previewsByText = createTextMemo<string>({ maxTexts: 4096, maxCharacters: 4 * 1024 * 1024 });
const MAX_PREVIEWED_BY_TEXT = 256 * 1024;

/** `text` previewed: its first 120 characters with whitespace collapsed. */
export function preview(text: string): string {
  const head = text.length > 240 ? text.slice(0, 240) : text;
  const flat = collapseWhitespace(head);
  return flat.length > 120 ? `${flat.slice(0, 119)}…` : flat;
}

/** Previews of long source blocks by block. */
const previews = new WeakMap<ContextBlock, { content: string; text: string }>();
