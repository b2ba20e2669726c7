import { layerOf } from './compose.ts';
import { hashText } from './fingerprint.ts';
import type { Message } from './message.ts';
import type { MessageFingerprint } from './report.ts';

/** Hashes by message content (a recompile over the same objects hashes nothing again). */
const byContent = new WeakMap<object, string>();
/** Hashes of plain-text contents per role, keyed by the content string itself (no concatenation). */
const byText = new Map<string, Map<string, string>>();
const MAX_TEXT_ENTRIES = 8192;

/**
 * One fingerprint per emitted message: id, layer, role, cost and a hash of role and content.
 * Equal hashes at equal positions of two calls mean the same prefix (prompt caches, diffs).
 */
export function messageFingerprints(
  messages: readonly Message[],
  costs: readonly number[],
): MessageFingerprint[] {
  return messages.map((message, index) => ({
    id: message.id,
    layer: layerOf(message) ?? 'history',
    role: message.role,
    tokens: costs[index] ?? 0,
    hash: hashOf(message),
  }));
}

/** Hashes by message object, reused while its role and content are the same values. */
const byMessage = new WeakMap<Message, { role: string; content: Message['content']; hash: string }>();

function hashOf(message: Message): string {
  const known = byMessage.get(message);
  if (known !== undefined && known.content === message.content && known.role === message.role)
    return known.hash;
  const hash = hashOfContent(message);
  byMessage.set(message, { role: message.role, content: message.content, hash });
  return hash;
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
      hash = hashText(`${message.role}\u0000${content}`);
      if (forRole.size >= MAX_TEXT_ENTRIES) forRole.clear();
      forRole.set(content, hash);
    }
    return hash;
  }
  let hash = byContent.get(content);
  if (hash === undefined) {
    hash = hashText(`${message.role}\u0000${JSON.stringify(content)}`);
    byContent.set(content, hash);
  }
  return hash;
}
