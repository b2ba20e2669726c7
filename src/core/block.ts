import { CtxloomError } from './errors.ts';
import { fingerprintContent } from './fingerprint.ts';
import type { TokenCounter } from './tokens.ts';

/** Where a block's text came from: a file and a 1-based inclusive line range. */
export interface Provenance {
  file: string;
  startLine: number;
  endLine: number;
}

/**
 * The unit of collection, selection and compaction (seed 001). `tokens` is counted once when
 * the block is made; `fingerprint` deduplicates equal content from different sources.
 */
export interface ContextBlock {
  /** Unique within one compile. */
  id: string;
  /** The layer it fills, e.g. `knowledge__context` or `history`. */
  layer: string;
  /** Name of the source that produced it (used by budget allocation and the report). */
  source: string;
  content: string;
  tokens: number;
  /** 0..1; higher survives longer. */
  priority: number;
  fingerprint: string;
  provenance?: Provenance;
  /** Pinned blocks are kept before any unpinned block of any layer. */
  pinned?: boolean;
  /**
   * Blocks sharing a group are kept or dropped together (a tool call and its result,
   * a whole turn). Optional; blocks without one stand alone.
   */
  group?: string;
  metadata: Record<string, unknown>;
}

/** Input of {@link createBlock}: a block without the computed fields. */
export interface CreateBlockInput {
  id: string;
  layer: string;
  source: string;
  content: string;
  /** 0..1, default 0.5. */
  priority?: number;
  provenance?: Provenance;
  pinned?: boolean;
  group?: string;
  metadata?: Record<string, unknown>;
  /** Pre-counted tokens; counted with `counter` when absent. */
  tokens?: number;
  /**
   * The content's dedup key when the caller already has it (e.g. a retrieval candidate's
   * `fingerprint` for its unchanged content); `fingerprintContent(content)` when absent.
   */
  fingerprint?: string;
}

/** Makes a {@link ContextBlock}, counting its tokens with `counter` and fingerprinting it. */
export function createBlock(input: CreateBlockInput, counter: TokenCounter): ContextBlock {
  const priority = input.priority ?? 0.5;
  if (!(priority >= 0 && priority <= 1)) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `block priority must be within 0..1, got ${priority}`,
      path: `${input.id}.priority`,
    });
  }
  const block: ContextBlock = {
    id: input.id,
    layer: input.layer,
    source: input.source,
    content: input.content,
    tokens: input.tokens ?? counter.countText(input.content),
    priority,
    fingerprint: input.fingerprint ?? fingerprintContent(input.content),
    metadata: input.metadata ?? {},
  };
  if (input.provenance !== undefined) block.provenance = input.provenance;
  if (input.pinned !== undefined) block.pinned = input.pinned;
  if (input.group !== undefined) block.group = input.group;
  return block;
}
