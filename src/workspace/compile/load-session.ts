import { CtxloomError, type Message } from '../../core/index.ts';
import type { ContextConfig } from '../config/context-config-schema.ts';
import { parseContextConfig } from '../config/parse-context-config.ts';
import type { CurationEvent } from '../curation/curation-event.ts';
import { isCallLog } from '../session/reserved-files.ts';
import { readCurationLog, readMessages } from '../session/session-store.ts';
import type { ParsedFile, Workspace } from '../workspace.ts';
import { referencedPaths } from './merge-references.ts';
import type { PromptFile } from './resolve-sources.ts';

/** Name of the compile manifest in a session folder. */
export const CONTEXT_CONFIG_FILE = 'context-config.json';

/** Everything the pure compile stages need, read through the session sandbox. */
export interface LoadedSession {
  sessionId: string;
  config: ContextConfig;
  prompts: PromptFile[];
  /** Parsed files by path: the profile, injection sources and referenced files. */
  files: Map<string, ParsedFile>;
  messages: Message[];
  curation: CurationEvent[];
  /** Files searched by `retrieval` (empty unless the manifest enables it). */
  retrievalFiles: ParsedFile[];
  /** Referenced files that could not be read, with the error (missing, outside the session…). */
  referenceFailures?: ReadonlyMap<string, unknown>;
}

/** Options of {@link loadSession}. */
export interface LoadSessionOptions {
  workspace: Workspace;
  sessionId: string;
  /** The manifest; default: the session's `context-config.json` (defaults when it is missing). */
  config?: ContextConfig;
  /** Overrides `config.query` (e.g. the message being sent). */
  query?: string;
  /**
   * The session's messages and curation when a session store already read them (the session
   * engine); default: read `messages.json` and `memory.json` through the sandbox.
   */
  record?: { messages: Message[]; curation: CurationEvent[] };
}

/**
 * Reads what a compile of `sessionId` needs — prompts, profile, injection sources, referenced
 * files, messages and the curation log — all through the session sandbox (global files fall
 * back to the workspace). A `global` prompt must be one of `workspace.globalFiles`
 * (`path-escape` otherwise), so a manifest never reads another session or `sessions.json`.
 * A referenced file that cannot be read is recorded in `referenceFailures` (the merge stage
 * names it with every other bad reference); a missing profile or injection source throws.
 */
export async function loadSession(options: LoadSessionOptions): Promise<LoadedSession> {
  const { workspace, sessionId } = options;
  const sandbox = workspace.session(sessionId);
  if (!(await workspace.sandbox.exists(sessionId))) {
    throw new CtxloomError({
      code: 'not-found',
      message: `no session "${sessionId}" in the workspace`,
      file: sessionId,
    });
  }
  let config = options.config;
  if (config === undefined) {
    config = (await sandbox.exists(CONTEXT_CONFIG_FILE))
      ? parseContextConfig(await sandbox.readText(CONTEXT_CONFIG_FILE), CONTEXT_CONFIG_FILE)
      : parseContextConfig('{}');
  }
  if (options.query !== undefined) config = { ...config, query: options.query };

  const prompts = await Promise.all(
    config.systemPrompt.map(async ({ type, file }): Promise<PromptFile> => {
      if (type === 'global' && !workspace.globalFiles.includes(file)) {
        throw new CtxloomError({
          code: 'path-escape',
          message: `a global prompt must be one of the workspace's global files (${workspace.globalFiles.join(', ')})`,
          file: CONTEXT_CONFIG_FILE,
          path: `systemPrompt: ${file}`,
        });
      }
      const holder = type === 'global' ? workspace.sandbox : sandbox;
      const text = (await holder.exists(file)) ? await holder.readText(file) : undefined;
      return { type, file, text };
    }),
  );

  const needed = new Set<string>();
  if (config.profileBlocks.length > 0) needed.add(config.profile);
  for (const injection of config.injections) needed.add(injection.source);
  const referenced = referencedPaths(config.query ?? '', config.references).filter(
    (path) => !needed.has(path),
  );
  const files = new Map<string, ParsedFile>();
  const referenceFailures = new Map<string, unknown>();
  await Promise.all([
    ...[...needed].map(async (path) => {
      files.set(path, await workspace.readParsed(sandbox, path));
    }),
    // A referenced file that cannot be read is the message's problem, named with every other
    // bad reference by the merge stage; the manifest's own files fail here.
    ...referenced.map(async (path) => {
      try {
        files.set(path, await workspace.readParsed(sandbox, path));
      } catch (error) {
        referenceFailures.set(path, error);
      }
    }),
  ]);

  const retrievalFiles: ParsedFile[] = [];
  if (config.retrieval?.enabled) {
    const paths =
      config.retrieval.files ??
      (await sandbox.list('', { recursive: true, skipInside: isCallLog }))
        .filter((entry) => entry.kind === 'file' && /\.(?:md|markdown)$/iu.test(entry.path))
        .map((entry) => entry.path);
    for (const path of paths)
      retrievalFiles.push(files.get(path) ?? (await workspace.readParsed(sandbox, path)));
  }

  if (options.record !== undefined) {
    return { sessionId, config, prompts, files, ...options.record, retrievalFiles, referenceFailures };
  }
  const [messages, curation] = await Promise.all([
    readMessages(sandbox, config.chatHistory.source),
    readCurationLog(sandbox),
  ]);
  return {
    sessionId,
    config,
    prompts,
    files,
    messages,
    curation: curation.events,
    retrievalFiles,
    referenceFailures,
  };
}
