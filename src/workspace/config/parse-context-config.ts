import type { z } from 'zod';
import { CtxloomError } from '../../core/index.ts';
import { locateJsonPath, parseJsonTree } from '../json/parse-json-tree.ts';
import { type ContextConfig, contextConfigSchema } from './context-config-schema.ts';

/** One problem found in a config, with where it is. */
export interface ConfigIssue {
  /** JSON path such as `chatHistory.strategy` or `references.1.endLine`. */
  path: string;
  message: string;
  line: number;
  column: number;
}

/**
 * Parses and validates `context-config.json` text. Throws `parse-error` (bad JSON) or
 * `invalid-config` (schema) with the file, the JSON path and line/column of the first
 * problem; `details.issues` lists every problem.
 * @example
 * const config = parseContextConfig(await sandbox.readText('context-config.json'), 'context-config.json');
 */
export function parseContextConfig(text: string, file = 'context-config.json'): ContextConfig {
  const result = safeParseContextConfig(text, file);
  if (result.success) return result.data;
  throw result.error;
}

/** {@link parseContextConfig} returning `{ success, data | error }` instead of throwing. */
export function safeParseContextConfig(
  text: string,
  file = 'context-config.json',
): { success: true; data: ContextConfig } | { success: false; error: CtxloomError } {
  let tree: ReturnType<typeof parseJsonTree>;
  try {
    tree = parseJsonTree(text, file);
  } catch (error) {
    if (error instanceof CtxloomError) return { success: false, error };
    throw error;
  }
  const result = contextConfigSchema.safeParse(tree.value);
  if (result.success) return { success: true, data: result.data };
  const issues = result.error.issues
    .flatMap((issue) => toIssues(issue, tree))
    .sort((a, b) => a.line - b.line || a.column - b.column);
  const first = issues[0] as ConfigIssue;
  const summary = issues.map(
    (issue) => `${issue.path || '(root)'} (${issue.line}:${issue.column}): ${issue.message}`,
  );
  return {
    success: false,
    error: new CtxloomError({
      code: 'invalid-config',
      message: `invalid context config: ${summary.join('; ')}`,
      file,
      line: first.line,
      column: first.column,
      path: first.path,
      details: { issues },
      cause: result.error,
    }),
  };
}

function toIssues(issue: z.core.$ZodIssue, tree: ReturnType<typeof parseJsonTree>): ConfigIssue[] {
  const base = issue.path.map((key) => (typeof key === 'symbol' ? String(key) : key));
  const keys = issue.code === 'unrecognized_keys' ? issue.keys : [undefined];
  return keys.map((key) => {
    const path = key === undefined ? base : [...base, key];
    const located = locateJsonPath(tree, path);
    const position =
      key === undefined && located.exact ? located.node.start : (located.keyStart ?? located.node.start);
    const message = key === undefined ? issue.message : `unknown key "${key}"`;
    return { path: path.join('.'), message, line: position.line, column: position.column };
  });
}
