import { join } from 'node:path';
import { hashText } from '../core/fingerprint.ts';
import { CtxloomError } from '../core/index.ts';
import { shorten } from '../core/shorten.ts';
import {
  type Block,
  type BlockSidecar,
  parseBlockSidecar,
  sidecarPathFor,
  syncBlockSidecar,
} from './blocks/index.ts';
import { parseJsonBlocks } from './blocks/parse-json-blocks.ts';
import { parseMarkdownDocument } from './blocks/parse-markdown-blocks.ts';
import { createSandbox, type Sandbox, type SandboxOptions } from './sandbox/create-sandbox.ts';
import { parseSessionsIndex, type SessionRecord, sessionRecordSchema } from './session/sessions-index.ts';

/**
 * Files of the workspace root a session may read (seed 003's global files): the only files
 * outside its own folder a session — its manifest's `global` prompts, its tools, its MCP
 * server — can reach. `profile.blocks.json` is `profile.md`'s short-id sidecar.
 */
export const DEFAULT_GLOBAL_FILES = ['system-prompt.md', 'profile.md', 'profile.blocks.json'] as const;

/** A file read through the sandbox and split into lines and (for `.md`/`.json`) blocks. */
export interface ParsedFile {
  path: string;
  text: string;
  lines: string[];
  /** Empty for files without a block parser. */
  blocks: Block[];
}

/** Options of {@link openWorkspace}. */
export interface OpenWorkspaceOptions {
  /** The workspace folder (holds `profile.md`, `system-prompt.md`, `sessions.json`, session folders). */
  root: string;
  /** Global files readable from every session. Default {@link DEFAULT_GLOBAL_FILES}. */
  globalFiles?: readonly string[];
  /**
   * Limits shared by every sandbox of the workspace. `lockTimeoutMs` is also how long a session
   * turn waits for another process's turn of the session (the files store's `holdTurn`).
   */
  limits?: Pick<SandboxOptions, 'maxReadBytes' | 'maxWriteBytes' | 'maxPathLength' | 'lockTimeoutMs'>;
}

/** Options of {@link Workspace.readParsed}. */
export interface ReadParsedOptions {
  /** Assign V2 short ids from the sidecar (`x.blocks.json`). Default true for Markdown. */
  shortIds?: boolean;
  /** Write the sidecar back when ids changed. Default false (reads never write unless asked). */
  persistShortIds?: boolean;
}

/** A workspace folder: the global sandbox, per-session sandboxes and a parse cache. */
export interface Workspace {
  readonly root: string;
  /** Sandbox rooted at the workspace folder (global files; the HTTP API's admin view). */
  readonly sandbox: Sandbox;
  /** The declared global files (top-level names of the root) every session may read. */
  readonly globalFiles: readonly string[];
  /** Sandbox rooted at one session folder, with read-only access to the global files. */
  session(sessionId: string): Sandbox;
  /** `sessions.json`, or the session folders when there is no index. */
  listSessions(): Promise<SessionRecord[]>;
  /** Reads a file through `sandbox` and parses its blocks; results are cached by content hash. */
  readParsed(sandbox: Sandbox, path: string, options?: ReadParsedOptions): Promise<ParsedFile>;
}

/**
 * Opens a workspace folder (seed 003 layout).
 * @example
 * const workspace = openWorkspace({ root: 'examples/notebook' });
 * const profile = await workspace.readParsed(workspace.session('distributed-systems'), 'profile.md');
 */
export function openWorkspace(options: OpenWorkspaceOptions): Workspace {
  const limits = options.limits ?? {};
  const sandbox = createSandbox({ root: options.root, ...limits });
  const globalFiles = options.globalFiles ?? DEFAULT_GLOBAL_FILES;
  const sessions = new Map<string, Sandbox>();
  const cache = new Map<string, { blocks: Block[]; lines: string[] }>();

  const workspace: Workspace = {
    root: options.root,
    sandbox,
    globalFiles,
    session(sessionId) {
      if (!sessionRecordSchema.shape.id.safeParse(sessionId).success) {
        throw new CtxloomError({
          code: 'path-escape',
          message: `invalid session id ${JSON.stringify(shorten(sessionId))}`,
          file: shorten(sessionId),
        });
      }
      let session = sessions.get(sessionId);
      if (session === undefined) {
        session = createSandbox({
          root: join(options.root, sessionId),
          ...limits,
          globals: { sandbox, files: globalFiles },
        });
        sessions.set(sessionId, session);
      }
      return session;
    },
    async listSessions() {
      if (await sandbox.exists('sessions.json'))
        return parseSessionsIndex(await sandbox.readText('sessions.json'));
      const entries = await sandbox.list('');
      return entries
        .filter(
          (entry) => entry.kind === 'directory' && sessionRecordSchema.shape.id.safeParse(entry.path).success,
        )
        .map((entry) => ({ id: entry.path, concept: entry.path, createdAt: '' }));
    },
    async readParsed(target, path, readOptions = {}) {
      const text = await target.readText(path);
      const isMarkdown = /\.(?:md|markdown)$/iu.test(path);
      const key = `${path}\u0000${hashText(text)}:${text.length}`;
      let parsed = cache.get(key);
      if (parsed === undefined) {
        if (isMarkdown) {
          const document = parseMarkdownDocument(text, path);
          parsed = { blocks: document.blocks, lines: document.lines };
        } else {
          const lines = text.split(/\r\n|\r|\n/u);
          parsed = { blocks: /\.json$/iu.test(path) ? parseJsonBlocks(text, path) : [], lines };
        }
        if (cache.size > 256) cache.delete(cache.keys().next().value as string);
        cache.set(key, parsed);
      }
      const blocks = structuredClone(parsed.blocks);
      if (isMarkdown && readOptions.shortIds !== false) {
        const sidecarPath = sidecarPathFor(path);
        const owner = await target.owner(path);
        let previous: BlockSidecar | undefined;
        if (await owner.exists(sidecarPath))
          previous = parseBlockSidecar(await owner.readText(sidecarPath), sidecarPath);
        const synced = syncBlockSidecar({
          file: path,
          blocks,
          ...(previous === undefined ? {} : { previous }),
        });
        if (synced.changed && readOptions.persistShortIds) {
          await owner.writeText(sidecarPath, `${JSON.stringify(synced.sidecar, null, 2)}\n`);
        }
      }
      return { path, text, lines: parsed.lines, blocks };
    },
  };
  return workspace;
}
