import { COMPRESSION_FILE, type SessionStore } from '../session/index.ts';
import { CURATION_FILE, MESSAGES_FILE } from '../workspace/index.ts';
import type { SessionChange } from '../workspace/watch-sessions.ts';

/** A session store whose writes this process can follow. */
export interface ObservedSessionStore {
  /** The store to use: every write goes to the wrapped one, then to the listeners. */
  store: SessionStore;
  /** Calls `listener` after each stored write to `sessionId`; returns the unsubscribe function. */
  subscribe(sessionId: string, listener: (change: SessionChange) => void): () => void;
}

/** Options of {@link observeSessionStore}. */
export interface ObserveSessionStoreOptions {
  /**
   * How often a watched session's head is read to see other processes' writes (ms,
   * 100..60 000). Default 1 000.
   */
  pollMs?: number;
}

/**
 * Wraps a session store so the notebook's live updates see its writes. The files store needs
 * none of it (the file watcher sees `messages.json` and `memory.json` change); a checkpoint
 * store writes no session file, so its stored writes are reported under the names of the
 * records they change — `messages.json` (messages), `memory.json` (curation),
 * `compression.json` — the names the notebook already follows. Writes of other processes on
 * the same database (two servers on one PostgreSQL store, a runtime process) are seen by
 * reading the head of each session someone watches every `pollMs` — one small read per open
 * page, none when no page is open — and reported under all three names.
 */
export function observeSessionStore(
  store: SessionStore,
  options: ObserveSessionStoreOptions = {},
): ObservedSessionStore {
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
  const headVersion = (store as { headVersion?: (sessionId: string) => Promise<string | null> }).headVersion;
  const watched = headVersion === undefined ? undefined : pollHeads(store, headVersion, listeners, options);
  const notify = (sessionId: string, path: string) => {
    for (const listener of listeners.get(sessionId) ?? []) listener({ paths: [path] });
    // This process's write: the poller takes its head as seen, so it is not reported twice.
    watched?.seen(sessionId);
  };
  // Members beyond the port (a checkpoint store's `blackboard`, `threadIdOf`, …) stay as they
  // are; a process turn (run in `exclusive`) writes messages the listeners are told about after.
  const extra = store as SessionStore & {
    exclusive?: <T>(sessionId: string, work: () => Promise<T>) => Promise<T>;
  };
  const exclusive = extra.exclusive;
  return {
    subscribe: watched === undefined ? subscribe : watched.subscribe(subscribe),
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

/**
 * Reads the head of every watched session every `pollMs` and tells its listeners when it
 * moved without a write of this process (another process wrote). Polling stops for a session
 * when its last listener goes.
 */
function pollHeads(
  store: SessionStore,
  headVersion: (sessionId: string) => Promise<string | null>,
  listeners: Map<string, Set<(change: SessionChange) => void>>,
  options: ObserveSessionStoreOptions,
) {
  const pollMs = Math.min(60_000, Math.max(100, options.pollMs ?? 1000));
  const heads = new Map<string, string | null>();
  const timers = new Map<string, ReturnType<typeof setInterval>>();
  const read = (sessionId: string) =>
    headVersion.call(store, sessionId).catch(() => heads.get(sessionId) ?? null);
  const poll = async (sessionId: string) => {
    const head = await read(sessionId);
    if (!heads.has(sessionId) || heads.get(sessionId) === head) {
      heads.set(sessionId, head);
      return;
    }
    heads.set(sessionId, head);
    for (const listener of listeners.get(sessionId) ?? []) {
      listener({ paths: [MESSAGES_FILE, CURATION_FILE, COMPRESSION_FILE] });
    }
  };
  return {
    /** The head after this process's own write: seen, not another process's. */
    seen(sessionId: string) {
      if (!timers.has(sessionId)) return;
      void read(sessionId).then((head) => heads.set(sessionId, head));
    },
    subscribe(inner: ObservedSessionStore['subscribe']): ObservedSessionStore['subscribe'] {
      return (sessionId, listener) => {
        const unsubscribe = inner(sessionId, listener);
        if (!timers.has(sessionId)) {
          void read(sessionId).then((head) => {
            if (!heads.has(sessionId)) heads.set(sessionId, head);
          });
          const timer = setInterval(() => void poll(sessionId), pollMs);
          timer.unref?.();
          timers.set(sessionId, timer);
        }
        return () => {
          unsubscribe();
          if (listeners.has(sessionId)) return;
          clearInterval(timers.get(sessionId));
          timers.delete(sessionId);
          heads.delete(sessionId);
        };
      };
    },
  };
}
