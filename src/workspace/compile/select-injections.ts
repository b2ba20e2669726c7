import {
  type ContextBlock,
  CtxloomError,
  createBlock,
  type Message,
  type TokenCounter,
} from '../../core/index.ts';
import { resolveBlock } from '../blocks/resolve-block.ts';
import type { Injection } from '../config/context-config-schema.ts';
import type { LoadedFile } from '../references/resolve-reference.ts';

/** The key an injection is recorded under once delivered: `source#block` (or `source`). */
export function injectionKey(injection: Pick<Injection, 'source' | 'block'>): string {
  return injection.block === undefined ? injection.source : `${injection.source}#${injection.block}`;
}

/** Keys of `once` injections already delivered, read from `metadata.injections` of the history. */
export function deliveredInjections(history: readonly Message[]): Set<string> {
  const delivered = new Set<string>();
  for (const message of history) {
    const keys = message.metadata?.injections;
    if (Array.isArray(keys)) for (const key of keys) if (typeof key === 'string') delivered.add(key);
  }
  return delivered;
}

/** Options of {@link selectInjections}. */
export interface SelectInjectionsOptions {
  injections: readonly Injection[];
  lookup: (path: string) => LoadedFile | undefined;
  history: readonly Message[];
  counter: TokenCounter;
}

/**
 * Turns the manifest's injections into pinned context blocks (seed 003's injection layer).
 * `always` injections enter every call; `once` injections enter until a history message
 * records them in `metadata.injections` — the compiler puts the keys it delivered on the query
 * message, so storing that message marks them delivered. A missing file or block throws
 * `not-found` naming it. Pure.
 */
export function selectInjections(options: SelectInjectionsOptions): {
  blocks: ContextBlock[];
  delivered: string[];
  warnings: string[];
} {
  const already = deliveredInjections(options.history);
  const blocks: ContextBlock[] = [];
  const delivered: string[] = [];
  const warnings: string[] = [];
  for (const injection of options.injections) {
    const key = injectionKey(injection);
    if (injection.mode === 'once' && already.has(key)) continue;
    const file = options.lookup(injection.source);
    if (file === undefined) {
      throw new CtxloomError({
        code: 'not-found',
        message: `injection source ${injection.source} does not exist`,
        file: injection.source,
        path: key,
      });
    }
    let startLine = 1;
    let endLine = file.lines.length;
    let blockId: string | undefined;
    if (injection.block !== undefined) {
      const resolved = resolveBlock(file.blocks ?? [], injection.block, { file: file.path });
      if (resolved.warning !== undefined) warnings.push(resolved.warning);
      startLine = resolved.block.source.startLine;
      endLine = resolved.block.source.sectionEndLine;
      blockId = resolved.block.id;
    }
    while (endLine > startLine && (file.lines[endLine - 1] ?? '').trim() === '') endLine--;
    const content = file.lines
      .slice(startLine - 1, endLine)
      .join('\n')
      .trim();
    blocks.push(
      createBlock(
        {
          id: `injection:${key}`,
          layer: injection.layer,
          source: 'injections',
          content,
          priority: 1,
          pinned: true,
          provenance: { file: file.path, startLine, endLine },
          metadata: { injection: key, mode: injection.mode, ...(blockId === undefined ? {} : { blockId }) },
        },
        options.counter,
      ),
    );
    if (injection.mode === 'once') delivered.push(key);
  }
  return { blocks, delivered, warnings };
}
