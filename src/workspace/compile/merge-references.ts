import type { ConfigReference } from '../config/context-config-schema.ts';
import { parseReferences } from '../references/parse-references.ts';
import { formatReference, type Reference } from '../references/reference.ts';
import {
  type LoadedFile,
  type ResolvedReference,
  resolveReference,
} from '../references/resolve-reference.ts';

/** Result of {@link mergeReferences}. */
export interface MergedQuery {
  /** The user message: the query, then every referenced passage. */
  text: string;
  resolved: ResolvedReference[];
  warnings: string[];
}

/** A manifest reference as a {@link Reference}. */
export function toReference(reference: ConfigReference): Reference {
  return 'block' in reference
    ? { type: 'block', path: reference.path, block: reference.block }
    : { type: 'lines', path: reference.path, startLine: reference.startLine, endLine: reference.endLine };
}

/** The paths of the files a query and explicit references need loaded. */
export function referencedPaths(query: string, references: readonly ConfigReference[]): string[] {
  return [
    ...new Set(
      [...parseReferences(query), ...references.map(toReference)].map((reference) => reference.path),
    ),
  ];
}

/**
 * Stage 3 of the workspace compiler (seed 003 "Merge References"): resolves the inline
 * references of the query and the explicit ones (the same reference twice is read once), and
 * appends each passage to the user message in a `<reference>` element that names its file
 * and lines. A missing file, block or range throws `not-found` naming it. Pure.
 * @example
 * mergeReferences({ query: '这段是什么意思 [guidance.md:12:30]', references: [], lookup }).text
 * // → '这段是什么意思 [guidance.md:12:30]\n\n<reference source="guidance.md:12-30">\n…\n</reference>'
 */
export function mergeReferences(options: {
  query: string;
  references: readonly ConfigReference[];
  lookup: (path: string) => LoadedFile | undefined;
}): MergedQuery {
  const all = [...parseReferences(options.query), ...options.references.map(toReference)];
  const seen = new Set<string>();
  const resolved: ResolvedReference[] = [];
  const warnings: string[] = [];
  for (const reference of all) {
    const key = formatReference(reference);
    if (seen.has(key)) continue;
    seen.add(key);
    const result = resolveReference(reference, options.lookup);
    if (result.warning !== undefined) warnings.push(result.warning);
    resolved.push(result);
  }
  const passages = resolved.map((reference) => {
    const block = reference.blockId === undefined ? '' : ` block="${escapeAttribute(reference.blockId)}"`;
    return `<reference source="${escapeAttribute(reference.path)}:${reference.startLine}-${reference.endLine}"${block}>\n${reference.text}\n</reference>`;
  });
  const text = [options.query.trim(), ...passages].filter((part) => part !== '').join('\n\n');
  return { text, resolved, warnings };
}

function escapeAttribute(value: string): string {
  return value.replace(/&/gu, '&amp;').replace(/"/gu, '&quot;').replace(/</gu, '&lt;');
}
