import { createHash } from 'node:crypto';
import type { JsonValue } from '../core/index.ts';
import type { KeyFieldValue } from './artifact-schema.ts';
import { summarizeSql } from './summarize-sql.ts';

/** Hex SHA-256 of a string's UTF-8 bytes. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** JSON with object keys sorted at every level, so equal values hash equally. */
export function canonicalJson(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key] as JsonValue)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** What the index keeps of a content: preview and derived key fields. */
export interface ContentDigest {
  text: string;
  sha256: string;
  length: number;
  preview: string;
  derivedFields: Record<string, KeyFieldValue>;
}

/**
 * Digests an artifact's content for the index. SQL — `sql_*` kinds, or text that starts with a
 * SQL statement (test queries) — gets a statement/table summary instead of a text head; JSON
 * (values, or text that parses as JSON) gets its top-level keys; other text a whitespace-
 * collapsed head. Every preview is at most `previewChars` characters.
 */
export function digestContent(
  kind: string,
  content: string | JsonValue,
  previewChars: number,
): ContentDigest {
  const isText = typeof content === 'string';
  const text = isText ? content : canonicalJson(content);
  const derivedFields: Record<string, KeyFieldValue> = {};
  let preview: string;
  const parsed = isText ? parseJsonText(content) : content;
  if (isText && (kind.startsWith('sql') || looksLikeSql(content))) {
    const summary = summarizeSql(content);
    derivedFields.statements = summary.statements;
    if (summary.writes.length > 0) derivedFields.writes = summary.writes.join(', ');
    if (summary.reads.length > 0) derivedFields.reads = summary.reads.join(', ');
    // Tables are already key fields; the preview adds only the statement shape.
    preview = `SQL: ${summary.verbs.join(', ') || 'empty'}`;
  } else if (
    parsed !== null &&
    parsed !== undefined &&
    typeof parsed === 'object' &&
    !Array.isArray(parsed)
  ) {
    preview = `{ ${Object.keys(parsed).sort().join(', ')} }`;
  } else if (Array.isArray(parsed)) {
    preview = `[ ${parsed.length} item(s) ]`;
  } else {
    preview = text.replace(/\s+/gu, ' ').trim();
  }
  return {
    text,
    sha256: sha256Hex(text),
    length: text.length,
    preview: clip(preview, previewChars),
    derivedFields,
  };
}

/** Cuts text to `maxChars`, ending in `…` when cut. */
export function clip(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, Math.max(0, maxChars - 1))}…`;
}

const SQL_START =
  /^\s*(?:--[^\n]*\n\s*|\/\*[\s\S]*?\*\/\s*)*(?:select|insert|create|with|merge|update|delete|alter|drop|truncate)\b/iu;

/** True when text starts with a SQL statement (after comments). */
export function looksLikeSql(text: string): boolean {
  return SQL_START.test(text);
}

function parseJsonText(text: string): JsonValue | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return undefined;
  try {
    return JSON.parse(trimmed) as JsonValue;
  } catch {
    return undefined;
  }
}
