import type { LanguageModel } from 'ai';
import type { SessionEngine } from '../session/index.ts';
import type { Workspace } from '../workspace/index.ts';

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
  model: NotebookModel;
  /** Most model steps per chat request (tool call + answer = 2). */
  maxSteps: number;
  /** Compiles run at once by the chat route; more wait (after their `start` chunk). */
  maxConcurrentCompiles: number;
  /** The session engine every chat, preview, compress and curation request runs through. */
  engine: SessionEngine;
  now: () => Date;
  createId: () => string;
}
