import { z } from 'zod';

/** Built-in artifact kinds of the ETL flow; any other lowercase snake_case kind is accepted. */
export const ARTIFACT_KINDS = ['analysis', 'plan', 'test', 'sql_job', 'sql_workflow'] as const;

/** An artifact kind: one of {@link ARTIFACT_KINDS} or an application's own (`^[a-z][a-z0-9_]*$`). */
export type ArtifactKind = (typeof ARTIFACT_KINDS)[number] | (string & {});
/** Validates an {@link ArtifactKind}. */
export const ArtifactKindSchema = z.string().regex(/^[a-z][a-z0-9_]*$/u);

/** A short scalar describing an artifact (target table, row count, test verdict …). */
export const KeyFieldValueSchema = z.union([z.string(), z.number(), z.boolean()]);
/** A value of {@link KeyFieldValueSchema}. */
export type KeyFieldValue = z.infer<typeof KeyFieldValueSchema>;

/**
 * One version of an agent output in the index: fingerprints and a bounded preview, never the
 * content itself (seed 004 §2.2). `key` is `<kind>:<name>`, the logical artifact; `id` is
 * `<key>@v<version>`, the address of the raw content kept beside the index.
 */
export const ArtifactEntrySchema = z.object({
  id: z.string(),
  key: z.string(),
  kind: ArtifactKindSchema,
  name: z.string().min(1),
  agentId: z.string().min(1),
  version: z.number().int().min(1),
  status: z.enum(['active', 'superseded', 'invalidated']),
  /** Hex SHA-256 of the content (canonical JSON for objects). */
  sha256: z.string().regex(/^[0-9a-f]{64}$/u),
  /** Content length in UTF-16 code units. */
  length: z.number().int().min(0),
  keyFields: z.record(z.string(), KeyFieldValueSchema),
  /** Bounded preview: a head of text, a statement/table summary of SQL, the keys of JSON. */
  preview: z.string(),
  turnIndex: z.number().int().min(0),
  /** Milliseconds since the epoch, from the injected clock. */
  createdAt: z.number(),
  invalidation: z.object({ reason: z.string(), turnIndex: z.number().int().min(0) }).optional(),
});
/** A value of {@link ArtifactEntrySchema}. */
export type ArtifactEntry = z.infer<typeof ArtifactEntrySchema>;

/** A tool call's evidence: input/output fingerprints and a short preview of the output. */
export const ToolEvidenceSchema = z.object({
  id: z.string(),
  toolName: z.string().min(1),
  agentId: z.string().min(1),
  /** The artifact this evidence supports (e.g. a dry run of a SQL job), or `null`. */
  artifactId: z.string().nullable(),
  ok: z.boolean(),
  inputSha256: z.string(),
  outputSha256: z.string(),
  inputLength: z.number().int().min(0),
  outputLength: z.number().int().min(0),
  preview: z.string(),
  turnIndex: z.number().int().min(0),
  createdAt: z.number(),
});
/** A value of {@link ToolEvidenceSchema}. */
export type ToolEvidence = z.infer<typeof ToolEvidenceSchema>;

/** The per-session index (saved format, `version` 1). Holds no raw SQL and no full JSON. */
export const ArtifactIndexSchema = z.object({
  version: z.literal(1),
  threadId: z.string().min(1),
  artifacts: z.array(ArtifactEntrySchema),
  evidence: z.array(ToolEvidenceSchema),
  /** Keys (`<kind>:<name>`) the user or planner is focused on; shown first among jobs. */
  focus: z.array(z.string()),
});
/** A value of {@link ArtifactIndexSchema}. */
export type ArtifactIndex = z.infer<typeof ArtifactIndexSchema>;

/**
 * An {@link ArtifactIndex} plus the raw contents it indexes, addressable by artifact id. The
 * contents belong to agent state (the authoritative record); views read only the index.
 */
export const ArtifactStoreStateSchema = z.object({
  index: ArtifactIndexSchema,
  contents: z.record(z.string(), z.string()),
});
/** A value of {@link ArtifactStoreStateSchema}. */
export type ArtifactStoreState = z.infer<typeof ArtifactStoreStateSchema>;
