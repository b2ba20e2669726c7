import type { z } from 'zod';
import type { Block } from '../blocks/block.ts';
import { blockSectionText } from '../blocks/parse-blocks.ts';
import { resolveBlock } from '../blocks/resolve-block.ts';
import { capOutput } from './cap-output.ts';
import type { ToolContext } from './tool-context.ts';
import type { dismissMemoryInput, readBlockInput } from './tool-schemas.ts';

/** The block tree of a file as an indented outline: `id [shortId] (lines s-e)`. */
export function formatBlockOutline(blocks: readonly Block[], depth = 0): string[] {
  return blocks.flatMap((block) => [
    `${'  '.repeat(depth)}${block.id}${block.shortId === undefined ? '' : ` [${block.shortId}]`} (lines ${block.source.startLine}-${block.source.sectionEndLine})`,
    ...formatBlockOutline(block.children, depth + 1),
  ]);
}

/**
 * `read_block`: a block's whole section (heading and sub-blocks) by heading path or short id;
 * a renamed heading resolves to the closest block with a note. Without `blockId`, the outline.
 */
export async function readBlockTool(
  context: ToolContext,
  input: z.infer<typeof readBlockInput>,
): Promise<string> {
  const parsed = await context.workspace.readParsed(context.sandbox, input.file);
  if (input.blockId === undefined || input.blockId === '') {
    const outline = formatBlockOutline(parsed.blocks);
    return capOutput(
      `${input.file} blocks:\n${outline.join('\n') || '(no headings)'}`,
      context.maxOutputChars,
    );
  }
  const resolved = resolveBlock(parsed.blocks, input.blockId, { file: input.file });
  const { startLine, sectionEndLine } = resolved.block.source;
  const note = resolved.warning === undefined ? '' : `note: ${resolved.warning}\n`;
  const header = `${note}${input.file}#${resolved.block.id} (lines ${startLine}-${sectionEndLine})`;
  return capOutput(
    `${header}\n${blockSectionText(parsed.lines, resolved.block)}`,
    context.maxOutputChars,
    'read a sub-block instead',
  );
}

/**
 * `dismiss_memory`: records that the model judged a message (usually a tool result) no
 * longer needed; later compiles show a placeholder with `summary`. The stored record keeps the
 * original; the event goes to the session's curation log, in whatever store keeps the session
 * (`context.curate`).
 */
export async function dismissMemoryTool(
  context: ToolContext,
  input: z.infer<typeof dismissMemoryInput>,
  toolCallId?: string,
): Promise<string> {
  const [event] = await context.curate({
    action: 'dismiss',
    targetMessageIds: [input.targetMessageId],
    summary: input.summary,
    by: 'model',
    ...(toolCallId === undefined ? {} : { toolCallId }),
  });
  return `dismissed ${input.targetMessageId} (event ${event?.id}); it will appear as a placeholder from the next call on`;
}
