import { z } from 'zod';
import { fingerprintContent, hashText } from '../../core/fingerprint.ts';
import { CtxloomError } from '../../core/index.ts';
import { parseJsonText } from '../json/parse-json-text.ts';
import type { Block } from './block.ts';
import { flattenBlocks } from './flatten-blocks.ts';
import { similarity, similarityBound, similarityCost } from './similarity.ts';

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
  /**
   * Work limit of the rename search by similar heading, in word operations of the distance
   * (`similarityCost`), ≥ 0. Default {@link DEFAULT_RENAME_WORK}.
   */
  maxRenameWork?: number;
}

/**
 * Default work limit of the rename search of one sync: about 0.1–0.3 s. Past it, blocks whose
 * path and content both changed get new short ids instead of a renamed block's.
 */
export const DEFAULT_RENAME_WORK = 4_000_000;

/**
 * Gives every block a persistent short id (V2) and returns the updated sidecar. A block keeps
 * its id when its heading path is unchanged, else when its content fingerprint matches a
 * vanished entry (a rename), else when a vanished entry at the same level has a similar
 * heading (compared within a work limit, `maxRenameWork`). New blocks get new ids. Linear in
 * blocks and entries apart from that bounded search. Mutates `blocks` (sets `shortId`); otherwise pure.
 */
export function syncBlockSidecar(options: SyncBlockSidecarOptions): {
  sidecar: BlockSidecar;
  changed: boolean;
  /** Word operations the rename search spent (at most `maxRenameWork` plus one comparison). */
  renameWork: number;
} {
  const createId =
    options.createId ??
    ((path, attempt) => hashText(`${options.file}\u0000${path}\u0000${attempt}`).slice(-6));
  const minRename = options.minRenameSimilarity ?? 0.5;
  const flat = flattenBlocks(options.blocks);
  const previous = options.previous?.blocks ?? [];
  const taken = new Set(previous.map((entry) => entry.id));
  const claimed = new Set<number>();
  const assigned = new Map<Block, string>();
  // Unclaimed entries by a key, in sidecar order: each lookup takes the first still unclaimed.
  const queues = (keyOf: (entry: (typeof previous)[number]) => string) => {
    const byKey = new Map<string, number[]>();
    previous.forEach((entry, index) => {
      const queue = byKey.get(keyOf(entry));
      if (queue === undefined) byKey.set(keyOf(entry), [index]);
      else queue.push(index);
    });
    return (key: string): number | undefined => {
      const queue = byKey.get(key);
      while (queue !== undefined && queue.length > 0 && claimed.has(queue[0] as number)) queue.shift();
      return queue?.[0];
    };
  };
  const claim = (block: Block, index: number | undefined): void => {
    if (index === undefined) return;
    claimed.add(index);
    assigned.set(block, (previous[index] as (typeof previous)[number]).id);
  };
  const fingerprints = new Map(flat.map((block) => [block, fingerprintContent(`${block.content}`)]));
  const byPath = queues((entry) => entry.path);
  for (const block of flat) claim(block, byPath(block.id));
  const byFingerprint = queues((entry) => entry.fingerprint);
  for (const block of flat) {
    if (assigned.has(block) || block.content.trim() === '') continue;
    claim(block, byFingerprint(fingerprints.get(block) ?? ''));
  }
  // Renames by similar heading: every pair at the same level would be quadratic (20,000
  // renamed headings took 15–60 s), so the comparisons share a work limit; blocks left over get new ids.
  const maxWork = options.maxRenameWork ?? DEFAULT_RENAME_WORK;
  let work = maxWork;
  for (const block of flat) {
    if (assigned.has(block) || work <= 0) continue;
    let bestIndex = -1;
    let bestScore = minRename;
    previous.forEach((entry, index) => {
      if (claimed.has(index) || entry.level !== block.level || work <= 0) return;
      if (similarityBound(entry.heading.trim().length, block.heading.trim().length) < bestScore) return;
      work -= similarityCost(entry.heading, block.heading);
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
  return { sidecar, changed, renameWork: maxWork - work };
}
