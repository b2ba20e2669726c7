import { type ContextBlock, type ContextSource, CtxloomError, createBlock } from '../../core/index.ts';
import { resolveBlock } from '../blocks/resolve-block.ts';
import type { Workspace } from '../workspace.ts';

/** Options of {@link createWorkspaceBlocksSource}. */
export interface WorkspaceBlocksSourceOptions {
  workspace: Workspace;
  sessionId: string;
  /** Block references `file#blockId` (V1 path or V2 short id), or a whole `file`, in priority order. */
  blocks: readonly string[];
  /** Source name (report, allocations). Default `workspace-blocks`. */
  name?: string;
  /** Layer filled. Default `knowledge__context`. */
  layer?: string;
  /** Priority 0..1 of the source and its blocks. Default 0.7. */
  priority?: number;
}

/**
 * A `ContextSource` that reads workspace blocks through the session sandbox on every collect,
 * so agents built on the runtime see the files as they are now. Blocks are taken in the order
 * given while they fit the budget (a block that does not fit is skipped, later smaller ones
 * may still enter); each carries its provenance. Renamed headings resolve to the closest
 * block; a missing file or block throws `not-found` naming it.
 */
export function createWorkspaceBlocksSource(options: WorkspaceBlocksSourceOptions): ContextSource {
  const name = options.name ?? 'workspace-blocks';
  const layer = options.layer ?? 'knowledge__context';
  const priority = options.priority ?? 0.7;
  if (!(priority >= 0 && priority <= 1)) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: 'priority must be within 0..1',
      path: 'priority',
    });
  }
  const sandbox = options.workspace.session(options.sessionId);
  return {
    name,
    layer,
    priority,
    async collect(request, budget) {
      const blocks: ContextBlock[] = [];
      let used = 0;
      for (const reference of options.blocks) {
        const hash = reference.indexOf('#');
        const file = hash < 0 ? reference : reference.slice(0, hash);
        const parsed = await options.workspace.readParsed(sandbox, file);
        let startLine = 1;
        let endLine = parsed.lines.length;
        let blockId: string | undefined;
        if (hash >= 0) {
          const resolved = resolveBlock(parsed.blocks, reference.slice(hash + 1), { file });
          startLine = resolved.block.source.startLine;
          endLine = resolved.block.source.sectionEndLine;
          blockId = resolved.block.id;
        }
        while (endLine > startLine && (parsed.lines[endLine - 1] ?? '').trim() === '') endLine--;
        const content = parsed.lines
          .slice(startLine - 1, endLine)
          .join('\n')
          .trim();
        if (content === '') continue;
        const block = createBlock(
          {
            id: `${name}:${blockId === undefined ? file : `${file}#${blockId}`}`,
            layer,
            source: name,
            content,
            priority,
            provenance: { file, startLine, endLine },
            metadata: blockId === undefined ? { file } : { file, blockId },
          },
          request.counter,
        );
        if (used + block.tokens > budget.maxTokens || blocks.some((kept) => kept.id === block.id)) continue;
        used += block.tokens;
        blocks.push(block);
      }
      return blocks;
    },
  };
}
