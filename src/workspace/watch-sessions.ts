import { type FSWatcher, watch } from 'node:fs';
import type { Workspace } from './workspace.ts';

/** What changed under a session: paths relative to the session folder (global files by name). */
export interface SessionChange {
  paths: string[];
}

/** Options of {@link createSessionWatcher}. */
export interface SessionWatcherOptions {
  workspace: Workspace;
  /** Global files a change of which concerns every session (e.g. `profile.md`). */
  globalFiles: readonly string[];
  /** Changes within this many milliseconds are sent as one event. Default 40. */
  settleMs?: number;
}

/** Subscribes to the changes of one session's files. */
export interface SessionWatcher {
  /** Calls `listener` after each settled burst of changes; returns the unsubscribe function. */
  subscribe(sessionId: string, listener: (change: SessionChange) => void): () => void;
  /** Open OS watchers (one per watched session plus one for the workspace root while any is). */
  readonly openWatchers: number;
}

/**
 * OS file watchers (`fs.watch`: the folder, and recursively) per session that has subscribers, and one on the
 * workspace root for the global files, shared by every subscriber and closed when the last
 * one leaves: nothing runs while nobody listens and nothing polls. Temp files of atomic
 * writes (`.…ctxloom-tmp`) and dot-files are ignored.
 */
export function createSessionWatcher(options: SessionWatcherOptions): SessionWatcher {
  const settleMs = options.settleMs ?? 40;
  const sessions = new Map<
    string,
    {
      watchers: FSWatcher[];
      listeners: Set<(change: SessionChange) => void>;
      pending: Set<string>;
      timer: NodeJS.Timeout | undefined;
    }
  >();
  let rootWatcher: FSWatcher | undefined;

  const flush = (sessionId: string) => {
    const entry = sessions.get(sessionId);
    if (entry === undefined) return;
    entry.timer = undefined;
    const paths = [...entry.pending].sort();
    entry.pending.clear();
    for (const listener of entry.listeners) listener({ paths });
  };
  const note = (sessionId: string, path: string) => {
    const entry = sessions.get(sessionId);
    if (entry === undefined || ignored(path)) return;
    entry.pending.add(path);
    entry.timer ??= setTimeout(() => flush(sessionId), settleMs);
  };
  const watchRoot = () => {
    if (rootWatcher !== undefined) return;
    rootWatcher = watch(options.workspace.root, { persistent: false }, (_event, name) => {
      const file = name?.toString();
      if (file === undefined || !options.globalFiles.includes(file)) return;
      for (const sessionId of sessions.keys()) note(sessionId, file);
    });
    rootWatcher.on('error', () => undefined);
  };

  return {
    subscribe(sessionId, listener) {
      let entry = sessions.get(sessionId);
      if (entry === undefined) {
        const folder = options.workspace.session(sessionId).root;
        const onEvent = (_event: string, name: string | Buffer | null) => {
          if (name !== null) note(sessionId, name.toString().split('\\').join('/'));
        };
        // Node's recursive watcher on Linux follows files by inode and loses a file that an
        // atomic write replaced (temp file + rename); a plain watch of the folder itself sees
        // every rename into it. Both report into one settled set, so duplicates merge.
        const watchers = [
          watch(folder, { recursive: true, persistent: false }, onEvent),
          watch(folder, { persistent: false }, onEvent),
        ];
        for (const watcher of watchers) watcher.on('error', () => undefined);
        entry = { watchers, listeners: new Set(), pending: new Set(), timer: undefined };
        sessions.set(sessionId, entry);
        watchRoot();
      }
      entry.listeners.add(listener);
      const current = entry;
      return () => {
        current.listeners.delete(listener);
        if (current.listeners.size > 0) return;
        for (const watcher of current.watchers) watcher.close();
        if (current.timer !== undefined) clearTimeout(current.timer);
        sessions.delete(sessionId);
        if (sessions.size === 0) {
          rootWatcher?.close();
          rootWatcher = undefined;
        }
      };
    },
    get openWatchers() {
      return sessions.size + (rootWatcher === undefined ? 0 : 1);
    },
  };
}

function ignored(path: string): boolean {
  return path.endsWith('.ctxloom-tmp') || path.split('/').some((segment) => segment.startsWith('.'));
}
