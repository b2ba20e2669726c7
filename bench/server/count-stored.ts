import { openSessionStore } from '../../src/session/open-session-store.ts';
import { openWorkspace } from '../../src/workspace/index.ts';
import type { ChatSample } from './load.ts';

/** One chat of the load, with the session it went to. */
export interface SentChat {
  sessionId: string;
  sample: ChatSample;
}

/** What the store holds of the chats sent, read back directly (not through a server). */
export interface StoredCount {
  /** Acknowledged turns (status 200, `finish`) whose question or answer is not stored. */
  lost: number;
  /** Extra copies: every stored occurrence of a sent question or answer id beyond the first. */
  duplicated: number;
  /** Acknowledged turns. */
  acknowledged: number;
}

/**
 * Opens the store of `storeSpec` (`files` or a PostgreSQL URL) over the workspace at `root`,
 * loads every session the chats went to, and counts lost and duplicated messages.
 */
export async function countStored(options: {
  root: string;
  storeSpec: string;
  chats: readonly SentChat[];
}): Promise<StoredCount> {
  const store = await openSessionStore(options.storeSpec, {
    workspace: openWorkspace({ root: options.root }),
  });
  try {
    const occurrences = new Map<string, Map<string, number>>();
    for (const sessionId of new Set(options.chats.map((chat) => chat.sessionId))) {
      const counts = new Map<string, number>();
      for (const message of (await store.load(sessionId)).messages)
        counts.set(message.id, (counts.get(message.id) ?? 0) + 1);
      occurrences.set(sessionId, counts);
    }
    let lost = 0;
    let duplicated = 0;
    let acknowledged = 0;
    for (const { sessionId, sample } of options.chats) {
      const counts = occurrences.get(sessionId) ?? new Map<string, number>();
      const ids = [sample.questionId, ...(sample.answerId === undefined ? [] : [sample.answerId])];
      for (const id of ids) duplicated += Math.max(0, (counts.get(id) ?? 0) - 1);
      if (!sample.acknowledged) continue;
      acknowledged++;
      if (sample.answerId === undefined || ids.some((id) => !counts.has(id))) lost++;
    }
    return { lost, duplicated, acknowledged };
  } finally {
    await store.close();
  }
}
