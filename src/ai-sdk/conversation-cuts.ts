import { createHistoryCutStore, type HistoryCutStore, type Message } from '../core/index.ts';

/** Default number of conversations whose cut a hook remembers (least recently used go first). */
export const DEFAULT_MAX_CONVERSATIONS = 256;

/** One stored history cut per conversation (see {@link createConversationCuts}). */
export interface ConversationCuts {
  /** The store of the conversation `messages` belong to (its system messages and first message). */
  forMessages(messages: readonly Message[]): HistoryCutStore;
  /** Conversations remembered now. */
  readonly size: number;
}

/**
 * The stored cuts of the conversations a stateless hook sees (decision 040, stateless
 * callers), so each conversation's history start only moves forward across steps and turns.
 * A conversation is known by its system messages and its first other message — their ids are
 * content hashes (`fromModelMessages`), the same on every call of it. Two conversations that
 * begin alike share a store; a stored message that a conversation does not hold is ignored by
 * the compile, so the other one is unaffected until it holds that very message. At most
 * `maxConversations` are kept; the least recently used is forgotten first (its next call
 * starts a new cut).
 */
export function createConversationCuts(options: { maxConversations?: number } = {}): ConversationCuts {
  const max = Math.max(1, Math.floor(options.maxConversations ?? DEFAULT_MAX_CONVERSATIONS));
  const stores = new Map<string, HistoryCutStore>();
  return {
    forMessages(messages) {
      const key = conversationKey(messages);
      let store = stores.get(key);
      if (store === undefined) {
        store = createHistoryCutStore();
        if (stores.size >= max) stores.delete(stores.keys().next().value as string);
      } else {
        stores.delete(key);
      }
      stores.set(key, store);
      return store;
    },
    get size() {
      return stores.size;
    },
  };
}

function conversationKey(messages: readonly Message[]): string {
  const ids: string[] = [];
  for (const message of messages) {
    ids.push(message.id);
    if (message.role !== 'system') break;
  }
  return ids.join('\u0000');
}
