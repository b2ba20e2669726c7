import type { LanguageModel } from 'ai';
import type { SessionEngine, SessionStore } from '../session/index.ts';
import type { Workspace } from '../workspace/index.ts';
import type { SessionChange } from '../workspace/watch-sessions.ts';

/** The model a notebook server answers with. */
export interface NotebookModel {
  model: LanguageModel;
  /** The `CTXLOOM_MODEL` spec, e.g. `offline` or `openai:gpt-4o-mini`. */
  spec: string;
  /** True for the built-in offline model. */
  offline: boolean;
}

/** Everything the routes share: the workspace, the model, limits, clock and ids. */
export interface NotebookContext {
  workspace: Workspace;
  /** Where sessions are kept: the workspace files, or LangGraph checkpoints (`ctxloom serve --store`). */
  store: SessionStore;
  model: NotebookModel;
  /** Most model steps per chat request (tool call + answer = 2). */
  maxSteps: number;
  /** Compiles run at once by the chat route; more wait (after their `start` chunk). */
  maxConcurrentCompiles: number;
  /**
   * Follows this process's stored writes to a session (a checkpoint store changes no file the
   * watcher could see); returns the unsubscribe function.
   */
  subscribeStore(sessionId: string, listener: (change: SessionChange) => void): () => void;
  /** The session engine every chat, preview, compress and curation request runs through. */
  engine: SessionEngine;
  now: () => Date;
  createId: () => string;
}
