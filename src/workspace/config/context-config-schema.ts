import { z } from 'zod';
import { relativePathProblem } from '../sandbox/validate-path.ts';

/** Version of the `context-config.json` format this package reads and writes. */
export const CONTEXT_CONFIG_VERSION = 1;

/** A file of the session (or a declared global file) by its relative path: checked as the sandbox will read it. */
const relativeFile = z
  .string()
  .min(1, 'a file path must not be empty')
  .superRefine((path, context) => {
    const problem = relativePathProblem(path);
    if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
  });
const contextKey = z.string().regex(/^.+__context$/u, 'a layer must be a context key ending in "__context"');

const lineReference = z
  .strictObject({
    path: relativeFile,
    startLine: z.int().min(1),
    endLine: z.int().min(1),
  })
  .refine((value) => value.endLine >= value.startLine, {
    message: 'endLine must be ≥ startLine',
    path: ['endLine'],
  });

const blockReference = z.strictObject({ path: relativeFile, block: z.string().min(1) });

/**
 * The zod schema of `context-config.json` (seed 003: the compile manifest of one LLM call).
 * Every object is strict: unknown keys are errors.
 */
export const contextConfigSchema = z.strictObject({
  $schema: z.string().optional(),
  /** Format version; default 1. */
  version: z.literal(CONTEXT_CONFIG_VERSION).default(CONTEXT_CONFIG_VERSION),
  /** Prompt files, concatenated in order: `global` files live in the workspace, `session` files in the session. */
  systemPrompt: z.array(z.strictObject({ type: z.enum(['global', 'session']), file: relativeFile })).default([
    { type: 'global', file: 'system-prompt.md' },
    { type: 'session', file: 'session-prompt.md' },
  ]),
  /** The file `profileBlocks` select from (global fallback applies). Default `profile.md`. */
  profile: relativeFile.default('profile.md'),
  /** Block ids (V1 paths or V2 short ids) of the profile that enter the context. */
  profileBlocks: z.array(z.string().min(1)).default([]),
  chatHistory: z
    .strictObject({
      source: relativeFile.default('messages.json'),
      /**
       * `full` — every message; `last-n` — the last `lastN` messages (core's history window: the
       * older ones are reported dropped, reason `history-window`); `budget` — as many recent
       * messages as the history budget holds; `curated` — every message (the same as `full`,
       * kept for existing manifests). Every strategy replaces dismissed and excluded messages
       * by placeholders (decision 051), so `dismiss_memory` works wherever it is offered.
       */
      strategy: z.enum(['full', 'last-n', 'budget', 'curated']).default('full'),
      /** Messages kept by `last-n` (1..10 000). */
      lastN: z.int().min(1).max(10_000).optional(),
      /** Language of curation placeholders. Default `zh`. */
      placeholderLocale: z.enum(['zh', 'en']).default('zh'),
      /**
       * How a session that outgrows its window divides the history's budget (decision 040;
       * every strategy but `last-n`). Shares are of the input budget (window − output reserve).
       */
      longSession: z
        .strictObject({
          /** Share for older messages recalled for the query (`recall__context`), 0..0.8; 0 turns recall off. Default 0.55 (recall also fills whatever else the call leaves); at a turn's first call it gives way to the last turn (decision 069). */
          recallRatio: z.number().min(0).max(0.8).optional(),
          /** Most of the budget the rolling summary takes, 0.02..0.5. Default 0.04. */
          summaryRatio: z.number().min(0.02).max(0.5).optional(),
          /** Share of the recent slot the history keeps when the cut moves, 0.1..1. Default 0.5. */
          keepRatio: z.number().min(0.1).max(1).optional(),
          /** Compaction runs before a call passes this share of the input budget, 0.5..1. Default 0.9. */
          softLimitRatio: z.number().min(0.5).max(1).optional(),
        })
        .optional(),
    })
    .refine((value) => value.strategy !== 'last-n' || value.lastN !== undefined, {
      message: 'strategy "last-n" needs lastN',
      path: ['lastN'],
    })
    .default({ source: 'messages.json', strategy: 'full', placeholderLocale: 'zh' }),
  /** This call's user message; inline references are resolved. */
  query: z.string().optional(),
  /**
   * Explicit references (line ranges or blocks) appended to the next message sent; a stored
   * message records them (`metadata.manifestReferences`) and later messages do not carry them.
   */
  references: z
    .array(
      z.union([lineReference, blockReference], {
        error: 'a reference is { path, startLine, endLine } (lines) or { path, block } (a block)',
      }),
    )
    .default([]),
  /** Reminders injected into a context layer: `always` on every call, `once` until delivered. */
  injections: z
    .array(
      z.strictObject({
        source: relativeFile,
        block: z.string().min(1).optional(),
        mode: z.enum(['always', 'once']).default('always'),
        layer: contextKey.default('framework__context'),
      }),
    )
    .default([]),
  /**
   * Retrieval over workspace blocks into `knowledge__context` (BM25, CJK-aware): `files`
   * default to every Markdown file of the session; `topK` passages at most.
   */
  retrieval: z
    .strictObject({
      enabled: z.boolean().default(true),
      topK: z.int().min(1).max(100).default(5),
      files: z.array(relativeFile).optional(),
    })
    .optional(),
  budget: z
    .strictObject({
      /** Model name, shown in the report and used to pick a tokenizer. */
      model: z.string().min(1).optional(),
      /** Context window in tokens (256..10 000 000). Default 32 000. */
      window: z.int().min(256).max(10_000_000).default(32_000),
      /** Share of the window reserved for the answer, 0..0.9. Default 0.25. */
      outputReserve: z.number().min(0).max(0.9).default(0.25),
      /** Share of the input budget per source or layer name (each 0..1). */
      allocations: z.record(z.string(), z.number().min(0).max(1)).optional(),
    })
    .default({ window: 32_000, outputReserve: 0.25 }),
  /** Layer policy passed to the composer. */
  layers: z
    .strictObject({
      /** Merge all context layers into one system message. Default false. */
      merge: z.boolean().default(false),
      /** Inject shared `__context` layers (seed 000). Default true. */
      enableShareContext: z.boolean().default(true),
      /**
       * Composition order: `cache-friendly` (stable layers, the history, then the volatile
       * layers as user text before the query — prompt caches keep the history; decision 021)
       * or `default` (seed 000's: every context layer before the history). Default `cache-friendly`.
       */
      order: z.enum(['cache-friendly', 'default']).default('cache-friendly'),
    })
    .default({ merge: false, enableShareContext: true, order: 'cache-friendly' }),
});

/** A validated `context-config.json`, defaults filled in. */
export type ContextConfig = z.output<typeof contextConfigSchema>;
/** What may be written in `context-config.json` (defaults optional). */
export type ContextConfigInput = z.input<typeof contextConfigSchema>;
/** One entry of {@link ContextConfig.references}. */
export type ConfigReference = ContextConfig['references'][number];
/** One entry of {@link ContextConfig.injections}. */
export type Injection = ContextConfig['injections'][number];
