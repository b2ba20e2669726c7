import { z } from 'zod';
import { contextConfigSchema } from './context-config-schema.ts';

/** Where the published schema lives, relative to the package root (and on unpkg/jsDelivr). */
export const CONTEXT_CONFIG_SCHEMA_FILE = 'schemas/context-config.schema.json';

/**
 * The JSON Schema (draft 2020-12) of `context-config.json`, generated from
 * {@link contextConfigSchema} (input side: fields with defaults are optional). Editors use it
 * through the manifest's `$schema` key for completion and validation; cross-field rules (e.g.
 * `endLine ≥ startLine`) are checked by the parser only. The committed
 * `schemas/context-config.schema.json` equals this (a test checks; `npm run schema` rewrites it).
 */
export function contextConfigJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(contextConfigSchema, { io: 'input', target: 'draft-2020-12', unrepresentable: 'any' }),
    $id: 'https://unpkg.com/ctxloom/schemas/context-config.schema.json',
    title: 'ctxloom context-config.json',
    description: 'The compile manifest of one LLM call in a ctxloom workspace session.',
  };
}
