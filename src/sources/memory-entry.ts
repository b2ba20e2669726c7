import type { Message } from '../core/index.ts';
import type { ImportanceReason } from './importance-scorer.ts';

/** One remembered message with its tier data. */
export interface MemoryEntry {
  id: string;
  agentId: string;
  sessionId: string;
  /** Order within the agent/session, from 0. */
  seq: number;
  message: Message;
  /** The text indexed for L4 (`role: text`, tool parts rendered). */
  text: string;
  /** 0..1; ≥ the store's `importantThreshold` puts the entry in L2. */
  importance: number;
  reasons: Array<ImportanceReason | 'marked'>;
  /** Milliseconds since the epoch, from the store's clock. */
  createdAt: number;
}
