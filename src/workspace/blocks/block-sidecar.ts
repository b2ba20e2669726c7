import { z } from 'zod';
import { fingerprintContent, hashText } from '../../core/fingerprint.ts';
import { CtxloomError } from '../../core/index.ts';
import { parseJsonText } from '../json/parse-json-text.ts';
import type { Block } from './block.ts';
import { flattenBlocks } from './flatten-blocks.ts';
import { similarity } from './similarity.ts';

/** Version of the sidecar format written by {@link syncBlockSidecar}. */
export const BLOCK_SIDECAR_VERSION = 1;

const sidecarSchema = z.strictObject({
  version: z.literal(BLOCK_SIDECAR_VERSION),
  file: z.string(),
  blocks: z.array(
    z.strictObject({
      id: z.string().regex(/^[a-z0-9]{4,16}$/u),
      path: z.string(),
      heading: z.string(),
      level: z.number().int().min(1),
      fingerprint: z.string(),
    }),
  ),
});

/** The V2 id map stored beside a file (`profile.md` → `profile.blocks.json`). */
export type BlockSidecar = z.infer<typeof sidecarSchema>;

/** The sidecar file name of `file`: its extension replaced by `.blocks.json`. */
export function sidecarPathFor(file: string): string {
  const slash = file.lastIndexOf('/');
  const dot = file.lastIndexOf('.');
  return `${dot > slash + 1 ? file.slice(0, dot) : file}.blocks.json`;
}

/** Validates sidecar JSON text; throws `parse-error` / `invalid-config` naming the sidecar file. */
export function parseBlockSidecar(text: string, file: string): BlockSidecar {
  const json = parseJsonText(text, file);
  const result = sidecarSchema.safeParse(json);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new CtxloomError({
      code: 'invalid-config',
      message: `invalid block sidecar: ${issue?.message ?? 'unknown problem'}`,
      file,
      path: issue?.path.join('.') ?? '',
      cause: result.error,
    });
  }
  return result.data;
}

/** Options of {@link syncBlockSidecar}. */
export interface SyncBlockSidecarOptions {
  /** The file the blocks came from (stored in the sidecar). */
  file: string;
  blocks: Block[];
  /** The previous sidecar, when one exists. */
  previous?: BlockSidecar;
  /** Id generator; default: 6 hex digits hashed from file, path and attempt (deterministic). */
  createId?: (path: string, attempt: number) => string;
  /** Lowest heading similarity (0..1) that still counts as a rename. Default 0.5. */
  minRenameSimilarity?: number;
}

/**
 * Gives every block a persistent short id (V2) and returns the updated sidecar. A block keeps
 * its id when its heading path is unchanged, else when its content fingerprint matches a
 * vanished entry (a rename), else when a vanished entry at the same level has a similar
 * heading. New blocks get new ids. Mutates `blocks` (sets `shortId`); otherwise pure.
 */
export function syncBlockSidecar(options: SyncBlockSidecarOptions): {
  sidecar: BlockSidecar;
  changed: boolean;
} {
  const createId =
    options.createId ??
    ((path, attempt) => hashText(`${options.file}\u0000${path}\u0000${attempt}`).slice(-6));
  const minRename = options.minRenameSimilarity ?? 0.5;
  const flat = flattenBlocks(options.blocks);
  const unused = [...(options.previous?.blocks ?? [])];
  const taken = new Set(unused.map((entry) => entry.id));
  const assigned = new Map<Block, string>();
  const claim = (block: Block, index: number): void => {
    const [entry] = unused.splice(index, 1);
    if (entry !== undefined) assigned.set(block, entry.id);
  };
  const fingerprints = new Map(flat.map((block) => [block, fingerprintContent(`${block.content}`)]));
  for (const block of flat) {
    const index = unused.findIndex((entry) => entry.path === block.id);
    if (index >= 0) claim(block, index);
  }
  for (const block of flat) {
    if (assigned.has(block) || block.content.trim() === '') continue;
    const index = unused.findIndex((entry) => entry.fingerprint === fingerprints.get(block));
    if (index >= 0) claim(block, index);
  }
  for (const block of flat) {
    if (assigned.has(block)) continue;
    let bestIndex = -1;
    let bestScore = minRename;
    unused.forEach((entry, index) => {
      if (entry.level !== block.level) return;
      const score = similarity(entry.heading, block.heading);
      if (score >= bestScore) {
        bestScore = score;
        bestIndex = index;
      }
    });
    if (bestIndex >= 0) claim(block, bestIndex);
  }
  const entries: BlockSidecar['blocks'] = [];
  for (const block of flat) {
    let id = assigned.get(block);
    if (id === undefined) {
      let attempt = 0;
      do id = createId(block.id, attempt++);
      while (taken.has(id));
      taken.add(id);
    }
    block.shortId = id;
    entries.push({
      id,
      path: block.id,
      heading: block.heading,
      level: block.level,
      fingerprint: fingerprints.get(block) ?? '',
    });
  }
  const sidecar: BlockSidecar = { version: BLOCK_SIDECAR_VERSION, file: options.file, blocks: entries };
  const changed = JSON.stringify(sidecar) !== JSON.stringify(options.previous);
  return { sidecar, changed };
}
