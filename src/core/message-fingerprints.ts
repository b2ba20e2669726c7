import { type CarriedRun, layerOf } from './compose.ts';
import { hashJoined, hashText } from './fingerprint.ts';
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
const MAX_TEXT_ENTRIES = 8192;

/** Fingerprints of the runs of messages earlier calls sent (a step resends the history). */
const runs = createRunMemo<Message, MessageFingerprint>();

/**
 * One fingerprint per emitted message: id, layer, role, cost and a hash of role and content.
 * Equal hashes at equal positions of two calls mean the same prefix (prompt caches, diffs).
 * A message object sent again at the same cost (the history of every step of a tool loop)
 * gets the same frozen fingerprint object: a recompile builds and hashes only what is new.
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
    compute: (message, index) => fingerprintOf(message, costs[index] ?? 0),
    // The run keeps the costs its fingerprints were made with (each one's tokens), so the
    // check compares two numbers side by side instead of reading each fingerprint object.
    valid: (_fingerprint, index, saved) => saved === (costs[index] ?? 0),
    numbers: costs,
    // A run may be picked up where a layer begins (the history, the steps after the query).
    startsRun: (index) => layerOf(messages[index] as Message) !== layerOf(messages[index - 1] as Message),
  });
}

/** How many fingerprints were computed, not copied from an earlier call's run (tests read it). */
export function fingerprintsComputed(): number {
  return runs.computed + computedByRun;
}

/**
 * The fingerprints a report made for a tagged run's copies (aligned), and the costs they were
 * made with: the compile's own costs array (never changed once composed), the run's from `start`.
 */
const byRun = new WeakMap<
  CarriedRun['run'],
  { fingerprints: MessageFingerprint[]; costs: readonly number[]; start: number }
>();
let computedByRun = 0;

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
  for (let index = 0; index < start; index++) result[index] = computeAt(messages, costs, index);
  const knownCosts = known?.costs ?? [];
  const knownFrom = (known?.start ?? 0) + offset;
  for (let index = 0; index < count; index++) {
    const cost = costs[start + index] ?? 0;
    const fingerprint =
      index < reused && (knownCosts[knownFrom + index] ?? 0) === cost
        ? ((known as { fingerprints: MessageFingerprint[] }).fingerprints[
            offset + index
          ] as MessageFingerprint)
        : computeAt(messages, costs, start + index);
    fingerprints[index] = fingerprint;
    result[start + index] = fingerprint;
  }
  for (let index = start + count; index < messages.length; index++)
    result[index] = computeAt(messages, costs, index);
  byRun.set(run, { fingerprints, costs, start });
  return result;
}

function computeAt(
  messages: readonly Message[],
  costs: readonly number[],
  index: number,
): MessageFingerprint {
  computedByRun++;
  return fingerprintOf(messages[index] as Message, costs[index] ?? 0);
}

interface Known {
  content: Message['content'];
  fingerprint: MessageFingerprint;
}

/** Fingerprints by message object, reused while its id, role, content, layer and cost are the same. */
const byMessage = new WeakMap<Message, Known>();

function fingerprintOf(message: Message, tokens: number): MessageFingerprint {
  const known = byMessage.get(message);
  const layer = layerOf(message) ?? 'history';
  if (known !== undefined) {
    const { fingerprint } = known;
    if (
      known.content === message.content &&
      fingerprint.tokens === tokens &&
      fingerprint.role === message.role &&
      fingerprint.id === message.id &&
      fingerprint.layer === layer
    ) {
      return fingerprint;
    }
  }
  const hash =
    known !== undefined && known.content === message.content && known.fingerprint.role === message.role
      ? known.fingerprint.hash
      : hashOfContent(message);
  const fingerprint: MessageFingerprint = Object.freeze({
    id: message.id,
    layer,
    role: message.role,
    tokens,
    hash,
  });
  byMessage.set(message, { content: message.content, fingerprint });
  return fingerprint;
}

function hashOfContent(message: Message): string {
  const { content } = message;
  if (typeof content === 'string') {
    let forRole = byText.get(message.role);
    if (forRole === undefined) {
      forRole = new Map();
      byText.set(message.role, forRole);
    }
    let hash = forRole.get(content);
    if (hash === undefined) {
      hash = hashJoined(`${message.role}\u0000`, content);
      if (forRole.size >= MAX_TEXT_ENTRIES) forRole.clear();
      forRole.set(content, hash);
    }
    return hash;
  }
  const known = byContent.get(content);
  if (known !== undefined && known.role === message.role) return known.hash;
  const hash = hashText(`${message.role}\u0000${JSON.stringify(content)}`);
  byContent.set(content, { role: message.role, hash });
  return hash;
}
