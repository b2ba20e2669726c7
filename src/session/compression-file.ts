import { z } from 'zod';
import { CompressionStateSchema } from '../compression/index.ts';
import { CtxloomError } from '../core/index.ts';
import { issueLocation, parseJsonTree } from '../workspace/json/parse-json-tree.ts';
import type { HistorySummary, SessionCompression } from './session-store.ts';

/** File in a session folder holding its {@link SessionCompression}. */
export const COMPRESSION_FILE = 'compression.json';

const historySummarySchema = z.strictObject({
  text: z.string(),
  fromMessageId: z.string().min(1),
  throughMessageId: z.string().min(1),
  coveredCount: z.int().min(1),
  summarizer: z.string(),
  createdAt: z.string(),
});

const summaryPeriodSchema = z.strictObject({
  from: z.int().min(1),
  count: z.int().min(1),
  fromMessageId: z.string().min(1),
  throughMessageId: z.string().min(1),
  level: z.int().min(0),
  text: z.string(),
  carried: z.array(z.string()).optional(),
  summarizer: z.string(),
});

/** Version 3: the summary's rolling periods (decision 040). */
const compressionFileV3 = z.strictObject({
  version: z.literal(3),
  revision: z.int().min(0),
  summary: historySummarySchema.extend({ periods: z.array(summaryPeriodSchema).optional() }).nullable(),
  structured: CompressionStateSchema.nullable(),
  processedThrough: z.strictObject({ requirements: z.string().nullable(), artifacts: z.string().nullable() }),
});

/** Version 2 of {@link COMPRESSION_FILE}: the summary with its coverage, and seed 004's state (read; version 3 is written). */
const compressionFileV2 = z.strictObject({
  version: z.literal(2),
  revision: z.int().min(0),
  summary: historySummarySchema.nullable(),
  structured: CompressionStateSchema.nullable(),
  processedThrough: z.strictObject({ requirements: z.string().nullable(), artifacts: z.string().nullable() }),
});

/** Version 1 (before the session engine): a summary through one message, coverage implied. */
const compressionFileV1 = z.object({
  version: z.literal(1),
  summary: z.string(),
  throughMessageId: z.string(),
  summarizer: z.string(),
  createdAt: z.string(),
});

/** The state of a session that was never compressed. */
export const EMPTY_COMPRESSION: SessionCompression = Object.freeze({
  revision: 0,
  summary: null,
  structured: null,
  processedThrough: Object.freeze({ requirements: null, artifacts: null }),
});

/**
 * Parses {@link COMPRESSION_FILE}. A version 1 file (summary through one message) is read as
 * covering every message from the first through that one, which is what it claimed; ids
 * come from `messageIds` (the stored non-system messages, oldest first). Throws
 * `parse-error` / `invalid-config` naming the file.
 */
export function parseCompressionFile(text: string, messageIds: readonly string[]): SessionCompression {
  const tree = parseJsonTree(text, COMPRESSION_FILE);
  const v3 = compressionFileV3.safeParse(tree.value);
  if (v3.success) {
    const { version: _version, summary, ...rest } = v3.data;
    return { ...rest, summary: summary === null ? null : (withoutUndefined(summary) as HistorySummary) };
  }
  const v2 = compressionFileV2.safeParse(tree.value);
  if (v2.success) {
    const { version: _version, ...compression } = v2.data;
    return compression;
  }
  const v1 = compressionFileV1.safeParse(tree.value);
  if (v1.success) {
    const through = messageIds.indexOf(v1.data.throughMessageId);
    const first = messageIds[0];
    return {
      revision: 0,
      summary:
        through < 0 || first === undefined
          ? null
          : {
              text: v1.data.summary,
              fromMessageId: first,
              throughMessageId: v1.data.throughMessageId,
              coveredCount: through + 1,
              summarizer: v1.data.summarizer,
              createdAt: v1.data.createdAt,
            },
      structured: null,
      processedThrough: { requirements: null, artifacts: null },
    };
  }
  const issue = (isVersion(tree.value, 3) ? v3 : v2).error?.issues[0];
  throw new CtxloomError({
    code: 'invalid-config',
    message: `invalid compression file: ${issue?.message ?? 'unknown problem'}`,
    file: COMPRESSION_FILE,
    ...issueLocation(tree, issue?.path ?? []),
    cause: isVersion(tree.value, 3) ? v3.error : v2.error,
  });
}

/** The text of {@link COMPRESSION_FILE} for `compression`. */
export function formatCompressionFile(compression: SessionCompression): string {
  return `${JSON.stringify({ version: 3, ...compression }, null, 2)}\n`;
}

function isVersion(value: unknown, version: number): boolean {
  return typeof value === 'object' && value !== null && (value as { version?: unknown }).version === version;
}

/** The summary with its optional fields present only when set (`exactOptionalPropertyTypes`). */
function withoutUndefined<T extends { periods?: unknown }>(summary: T): T {
  if (summary.periods !== undefined) return summary;
  const { periods: _periods, ...rest } = summary;
  return rest as T;
}
