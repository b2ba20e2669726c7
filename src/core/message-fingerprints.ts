import type { ContextBlock } from './block.ts';
import { type CarriedRun, layerOf, newCopyRecord, taggedRecordAt } from './compose.ts';
import { hashJoined, hashText } from './fingerprint.ts';
import { type HistoryRecord, historyRecordOf } from './history-records.ts';
import type { Message } from './message.ts';
import type { MessageFingerprint } from './report.ts';
import { createRunMemo } from './run-memo.ts';

/**
 * Hashes by parts array, with the role they were hashed with (a recompile over the same objects
 * hashes nothing again; a role changed in place hashes again).
 */
const byContent = new WeakMap<object, { role: Message['role']; hash: string }>();
/** Hashes of plain-text contents per role, keyed by the content string itself (no concatenation). */
const byText = new Map<string, Map<string, string>>();
/** Most texts per role, and UTF-16 code units in all, {@link byText} keeps before it starts over (layer texts can be long). */
const MAX_TEXT_ENTRIES = 8192;
const MAX_TEXT_CHARACTERS = 8 * 1024 * 1024;
let textCharacters = 0;

/** Fingerprints of the runs of messages earlier calls sent (a step resends the history). */
const runs = createRunMemo<Message, MessageFingerprint>();

/**
 * One fingerprint per emitted message: id, layer, role, cost and a hash of role and content.
 * Equal hashes at equal positions of two calls mean the same prefix (prompt caches, diffs).
 * A history message's tagged copy sent again at the same cost (the history of every step of a
 * tool loop) gets the same frozen fingerprint object, kept in the message's record (see
 * {@link HistoryRecord}): a recompile builds and hashes only what is new. Other messages
 * (layers, the query) are new objects on every compile and are fingerprinted each time, their
 * hashes looked up by content.
 * With `history` (the history's tagged copies sit at `start`, as one tagged run), the copies
 * the run carried over take the fingerprints the last run's report made for them, by
 * position (see {@link CarriedRun}); only the other messages are looked at.
 */
export function messageFingerprints(
  messages: readonly Message[],
  costs: readonly number[],
  history?: { start: number; carried: CarriedRun },
): MessageFingerprint[] {
  if (history !== undefined) return withCarriedRun(messages, costs, history.start, history.carried);
  return runs.map({
    keys: messages,
    compute: (message, index) => fingerprintIn(message, costs[index] ?? 0, taggedRecordAt(messages, index)),
    // The run keeps the costs its fingerprints were made with (each one's tokens), so the
    // check compares two numbers side by side instead of reading each fingerprint object.
    valid: (_fingerprint, index, saved) => saved === (costs[index] ?? 0),
    numbers: costs,
    // A run may be picked up where a layer begins (the history, the steps after the query).
    startsRun: (index) => layerOf(messages[index] as Message) !== layerOf(messages[index - 1] as Message),
  });
}

/**
 * How many fingerprints were made, not taken from an earlier call's run or a copy's record
 * (tests read it).
 */
export function fingerprintsComputed(): number {
  return made;
}

/**
 * The fingerprints a report made for a tagged run's copies (aligned), and the costs they were
 * made with: the compile's own costs array (never changed once composed), the run's from `start`.
 */
const byRun = new WeakMap<
  CarriedRun['run'],
  { fingerprints: MessageFingerprint[]; costs: readonly number[]; start: number }
>();
let made = 0;

function withCarriedRun(
  messages: readonly Message[],
  costs: readonly number[],
  start: number,
  carried: CarriedRun,
): MessageFingerprint[] {
  const { run, previous, offset, same } = carried;
  const count = run.copies.length;
  const known = previous === undefined ? undefined : byRun.get(previous);
  const reused = known === undefined ? 0 : same;
  const result = new Array<MessageFingerprint>(messages.length);
  const fingerprints = new Array<MessageFingerprint>(count);
  for (let index = 0; index < start; index++) result[index] = fingerprintAt(messages, costs, index);
  const knownCosts = known?.costs ?? [];
  const knownFrom = (known?.start ?? 0) + offset;
  for (let index = 0; index < count; index++) {
    const cost = costs[start + index] ?? 0;
    const fingerprint =
      index < reused && (knownCosts[knownFrom + index] ?? 0) === cost
        ? ((known as { fingerprints: MessageFingerprint[] }).fingerprints[
            offset + index
          ] as MessageFingerprint)
        : fingerprintIn(
            messages[start + index] as Message,
            cost,
            recordInRun(run, index, messages[start + index] as Message),
          );
    fingerprints[index] = fingerprint;
    result[start + index] = fingerprint;
  }
  for (let index = start + count; index < messages.length; index++)
    result[index] = fingerprintAt(messages, costs, index);
  byRun.set(run, { fingerprints, costs, start });
  return result;
}

/**
 * The record of a run's `index`-th copy `copy`: a new copy's is in the run; a copy taken from
 * the last run whose fingerprint the last report did not keep (rare) is found by its message.
 */
function recordInRun(run: CarriedRun['run'], index: number, copy: Message): HistoryRecord | undefined {
  const record =
    newCopyRecord(run, index) ??
    historyRecordOf((run.blocks[index] as ContextBlock).metadata.message as Message);
  return record !== undefined && record.message === copy ? record : undefined;
}

/** `messages[index]`'s fingerprint, kept in its record when compose tagged it (see {@link HistoryRecord}). */
function fingerprintAt(
  messages: readonly Message[],
  costs: readonly number[],
  index: number,
): MessageFingerprint {
  return fingerprintIn(messages[index] as Message, costs[index] ?? 0, taggedRecordAt(messages, index));
}

/**
 * A fingerprint made for the report (not copied from a run). A history copy's is kept in its
 * record, reused while it describes the copy (a message tagged again gets a new copy and
 * record); any other message is new on every compile (layers, the query), so it is made
 * without a memo entry, its hash looked up by content.
 */
function fingerprintIn(
  message: Message,
  tokens: number,
  record: HistoryRecord | undefined,
): MessageFingerprint {
  if (record === undefined) return fingerprintFrom(undefined, undefined, message, tokens, true);
  const known = record.fingerprint;
  // The record keeps the hash for as long as the copy's content and role are the same: a
  // history text needs no entry in the by-text table as well (one insert per message of a new
  // session, ~0.4 µs each).
  const fingerprint = fingerprintFrom(known, record.fingerprintContent, message, tokens, false);
  if (fingerprint !== known) {
    record.fingerprint = fingerprint;
    record.fingerprintContent = message.content;
  }
  return fingerprint;
}

/**
 * `message`'s fingerprint at `tokens`: `known` (made from `content`) while it still describes
 * the message (id, role, content, layer and cost), else a new one, hashed again only when the
 * content or the role changed. `byTextMemo`: a plain-text content's hash is looked up in (and
 * added to) the by-text table.
 */
function fingerprintFrom(
  known: MessageFingerprint | undefined,
  content: Message['content'] | undefined,
  message: Message,
  tokens: number,
  byTextMemo: boolean,
): MessageFingerprint {
  const layer = layerOf(message) ?? 'history';
  const sameText = known !== undefined && content === message.content && known.role === message.role;
  if (sameText && known.tokens === tokens && known.id === message.id && known.layer === layer) return known;
  made++;
  return Object.freeze({
    id: message.id,
    layer,
    role: message.role,
    tokens,
    hash: sameText ? known.hash : hashOfContent(message, byTextMemo),
  });
}

/** The hash of a plain-text content sent with `role` (a message fingerprint's `hash`). */
export function textHash(role: Message['role'], content: string): string {
  return hashJoined(`${role}\u0000`, content);
}

function hashOfContent(message: Message, byTextMemo: boolean): string {
  const { content } = message;
  if (typeof content === 'string') {
    if (!byTextMemo) return textHash(message.role, content);
    let forRole = byText.get(message.role);
    if (forRole === undefined) {
      forRole = new Map();
      byText.set(message.role, forRole);
    }
    let hash = forRole.get(content);
    if (hash === undefined) {
      hash = textHash(message.role, content);
      if (forRole.size >= MAX_TEXT_ENTRIES || textCharacters + content.length > MAX_TEXT_CHARACTERS) {
        byText.clear();
        textCharacters = 0;
        forRole = new Map();
        byText.set(message.role, forRole);
      }
      forRole.set(content, hash);
      textCharacters += content.length;
    }
    return hash;
  }
  const known = byContent.get(content);
  if (known !== undefined && known.role === message.role) return known.hash;
  const hash = hashText(`${message.role}\u0000${JSON.stringify(content)}`);
  byContent.set(content, { role: message.role, hash });
  return hash;
}
