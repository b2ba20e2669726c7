import { COMPRESSION_FILE, type SessionStore } from '../session/index.ts';
import { CURATION_FILE, MESSAGES_FILE } from '../workspace/index.ts';
import type { SessionChange } from './watch-sessions.ts';

/** A session store whose writes this process can follow. */
export interface ObservedSessionStore {
  /** The store to use: every write goes to the wrapped one, then to the listeners. */
  store: SessionStore;
  /** Calls `listener` after each stored write to `sessionId`; returns the unsubscribe function. */
  subscribe(sessionId: string, listener: (change: SessionChange) => void): () => void;
}

/**
 * Wraps a session store so the notebook's live updates see its writes. The files store needs
 * none of it (the file watcher sees `messages.json` and `memory.json` change); a checkpoint
 * store writes no session file, so its stored writes are reported under the names of the
 * records they change — `messages.json` (messages), `memory.json` (curation),
 * `compression.json` — the names the notebook already follows. Writes of other processes on
 * the same database are not seen.
 */
export function observeSessionStore(store: SessionStore): ObservedSessionStore {
  const listeners = new Map<string, Set<(change: SessionChange) => void>>();
  const subscribe: ObservedSessionStore['subscribe'] = (sessionId, listener) => {
    let set = listeners.get(sessionId);
    if (set === undefined) {
      set = new Set();
      listeners.set(sessionId, set);
    }
    set.add(listener);
    const current = set;
    return () => {
      current.delete(listener);
      if (current.size === 0 && listeners.get(sessionId) === current) listeners.delete(sessionId);
    };
  };
  if (store.kind === 'files') return { store, subscribe };
  const notify = (sessionId: string, path: string) => {
    for (const listener of listeners.get(sessionId) ?? []) listener({ paths: [path] });
  };
  // Members beyond the port (a checkpoint store's `blackboard`, `threadIdOf`, …) stay as they
  // are; a process turn (run in `exclusive`) writes messages the listeners are told about after.
  const extra = store as SessionStore & {
    exclusive?: <T>(sessionId: string, work: () => Promise<T>) => Promise<T>;
  };
  const exclusive = extra.exclusive;
  return {
    subscribe,
    store: {
      ...store,
      ...(exclusive === undefined
        ? {}
        : {
            async exclusive<T>(sessionId: string, work: () => Promise<T>): Promise<T> {
              try {
                return (await exclusive.call(store, sessionId, work)) as T;
              } finally {
                notify(sessionId, MESSAGES_FILE);
              }
            },
          }),
      kind: store.kind,
      load: (sessionId) => store.load(sessionId),
      async appendMessages(sessionId, messages) {
        await store.appendMessages(sessionId, messages);
        notify(sessionId, MESSAGES_FILE);
      },
      async appendCuration(sessionId, events) {
        await store.appendCuration(sessionId, events);
        notify(sessionId, CURATION_FILE);
      },
      async saveCompression(sessionId, compression, options) {
        const saved = await store.saveCompression(sessionId, compression, options);
        notify(sessionId, COMPRESSION_FILE);
        return saved;
      },
      appendCall: (sessionId, call) => store.appendCall(sessionId, call),
      listCalls: (sessionId, options) => store.listCalls(sessionId, options),
      async deleteSession(sessionId) {
        await store.deleteSession(sessionId);
        notify(sessionId, MESSAGES_FILE);
      },
    },
  };
}
