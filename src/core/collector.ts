import type { ContextBlock } from './block.ts';
import { CtxloomError } from './errors.ts';
import { assertContextKey, type ContextKey, type LayerRegistry } from './layers.ts';
import type { CollectRequest, ContextSource } from './source.ts';

/** What one source returned (or why it returned nothing). */
export interface SourceResult {
  source: ContextSource;
  allocatedTokens: number;
  blocks: ContextBlock[];
  /** Set when `collect` threw something other than a CtxloomError; the compile goes on. */
  error?: string;
}

/** Input of {@link collectBlocks}. */
export interface CollectBlocksInput {
  sources: readonly ContextSource[];
  request: CollectRequest;
  /** Tokens per source name (what each `collect` receives as `budget.maxTokens`). */
  allocations: Readonly<Record<string, number>>;
  layers: LayerRegistry;
}

/**
 * Runs every source concurrently (seed 000's ContextCollector, collection half). Every
 * returned block must fill its source's layer, which must be a registered `__context`
 * layer (or `history`, for blocks that carry `metadata.message`); a violation throws. A
 * source failing for another reason is reported, not fatal: the call still goes out, and
 * the report says which source is missing.
 */
export async function collectBlocks(input: CollectBlocksInput): Promise<SourceResult[]> {
  const names = new Set<string>();
  for (const source of input.sources) {
    if (names.has(source.name)) {
      throw new CtxloomError({
        code: 'invalid-argument',
        message: `two sources are named "${source.name}"; source names must be unique`,
        path: `sources.${source.name}`,
      });
    }
    names.add(source.name);
    if (source.layer !== 'history') assertContextKey(source.layer);
    input.layers.get(source.layer);
  }
  return Promise.all(
    input.sources.map(async (source): Promise<SourceResult> => {
      const allocatedTokens = input.allocations[source.name] ?? 0;
      let blocks: ContextBlock[];
      try {
        blocks = await source.collect(input.request, { maxTokens: allocatedTokens, source: source.name });
      } catch (error) {
        if (error instanceof CtxloomError) throw error;
        return {
          source,
          allocatedTokens,
          blocks: [],
          error: error instanceof Error ? error.message : String(error),
        };
      }
      for (const block of blocks) validateBlock(source, block);
      return { source, allocatedTokens, blocks };
    }),
  );
}

function validateBlock(source: ContextSource, block: ContextBlock): void {
  if (block.layer !== source.layer) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `source "${source.name}" fills "${source.layer}" but returned block "${block.id}" for "${block.layer}"`,
      path: `sources.${source.name}.blocks.${block.id}.layer`,
    });
  }
  if (block.layer === 'history' && block.metadata.message === undefined) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `history block "${block.id}" from source "${source.name}" has no metadata.message`,
      path: `sources.${source.name}.blocks.${block.id}.metadata.message`,
    });
  }
}

/**
 * Renders kept blocks into `contexts` (seed 000's Collector output): one string per
 * `__context` layer, blocks joined by a blank line in their collection order.
 */
export function renderContexts(blocks: readonly ContextBlock[]): Record<ContextKey, string> {
  const parts = new Map<ContextKey, string[]>();
  for (const block of blocks) {
    if (block.layer === 'history') continue;
    assertContextKey(block.layer);
    const list = parts.get(block.layer) ?? [];
    list.push(block.content);
    parts.set(block.layer, list);
  }
  const contexts: Record<ContextKey, string> = {};
  for (const [layer, list] of parts) contexts[layer] = joined(layer, list);
  return contexts;
}

/** The last text each layer was rendered to, with the block texts it joins. */
const lastRendered = new Map<string, { texts: string[]; text: string }>();

/**
 * `texts` joined by a blank line. A layer rendered from the same texts as last time (a source
 * returns new blocks of the same texts on every compile) gets the same string back: no new
 * copy of a long layer, and a later search in it finds it already flat.
 */
function joined(layer: string, texts: string[]): string {
  const last = lastRendered.get(layer);
  if (last !== undefined && last.texts.length === texts.length) {
    let same = 0;
    while (same < texts.length && last.texts[same] === texts[same]) same++;
    if (same === texts.length) return last.text;
  }
  const text = texts.join('\n\n');
  lastRendered.set(layer, { texts, text });
  return text;
}

/** Output of {@link collectContexts}: seed 000's `contexts` plus the blocks behind them. */
export interface CollectedContexts {
  /** One string per `__context` layer; every key ends in `__context`. */
  contexts: Record<ContextKey, string>;
  blocks: ContextBlock[];
  results: SourceResult[];
}

/**
 * Seed 000's ContextCollector in one call: runs the sources and renders their blocks into
 * `contexts` (no selection — use `compileContext` to fit a budget). Keys are validated.
 */
export async function collectContexts(input: CollectBlocksInput): Promise<CollectedContexts> {
  const results = await collectBlocks(input);
  const blocks = results.flatMap((result) => result.blocks);
  return { contexts: renderContexts(blocks), blocks, results };
}
