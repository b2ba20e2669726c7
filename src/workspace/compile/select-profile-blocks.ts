import { type ContextBlock, createBlock, type TokenCounter } from '../../core/index.ts';
import { resolveBlock } from '../blocks/resolve-block.ts';
import type { LoadedFile } from '../references/resolve-reference.ts';

/** Options of {@link selectProfileBlocks}. */
export interface SelectProfileBlocksOptions {
  /** The profile file, parsed. */
  profile: LoadedFile;
  /** Block ids from `profileBlocks` (V1 paths or V2 short ids). */
  ids: readonly string[];
  counter: TokenCounter;
  /** Layer the blocks fill. Default `profile__context` (stable: sent before the history, decision 071). */
  layer?: string;
  /** Priority 0..1 of profile blocks. Default 0.8. */
  priority?: number;
}

/**
 * Stage 2 of the workspace compiler (seed 003 "Select Blocks"): picks the listed blocks of
 * the profile, each with its whole section (heading and sub-blocks), as context blocks with
 * provenance. A block selected twice (or inside another selected block) enters once. Unknown
 * ids fall back to the closest block with a warning, or throw `not-found`. Pure.
 */
export function selectProfileBlocks(options: SelectProfileBlocksOptions): {
  blocks: ContextBlock[];
  warnings: string[];
} {
  const layer = options.layer ?? 'profile__context';
  const warnings: string[] = [];
  const chosen = new Map<string, { startLine: number; endLine: number; id: string }>();
  for (const id of options.ids) {
    const resolved = resolveBlock(options.profile.blocks ?? [], id, { file: options.profile.path });
    if (resolved.warning !== undefined) warnings.push(resolved.warning);
    const { startLine, sectionEndLine } = resolved.block.source;
    chosen.set(resolved.block.id, { startLine, endLine: sectionEndLine, id: resolved.block.id });
  }
  const ranges = [...chosen.values()].sort((a, b) => a.startLine - b.startLine);
  const kept = ranges.filter(
    (range) =>
      !ranges.some(
        (other) =>
          other !== range &&
          other.startLine <= range.startLine &&
          other.endLine >= range.endLine &&
          (other.startLine < range.startLine || other.endLine > range.endLine),
      ),
  );
  const blocks = kept.map((range) =>
    createBlock(
      {
        id: `${options.profile.path}#${range.id}`,
        layer,
        source: 'profile',
        content: options.profile.lines.slice(range.startLine - 1, range.endLine).join('\n'),
        priority: options.priority ?? 0.8,
        provenance: { file: options.profile.path, startLine: range.startLine, endLine: range.endLine },
        metadata: { blockId: range.id },
      },
      options.counter,
    ),
  );
  return { blocks, warnings };
}
