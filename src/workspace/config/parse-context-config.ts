import type { z } from 'zod';
import { CtxloomError } from '../../core/index.ts';
import { locateJsonPath, parseJsonTree } from '../json/parse-json-tree.ts';
import { type ContextConfig, contextConfigSchema } from './context-config-schema.ts';

/** Problems the error's message names; `details.issues` has them all. */
const LISTED_ISSUES = 20;

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
  // The message names the first problems; a config with thousands of bad entries would
  // otherwise make a message of megabytes (the HTTP error body, the CLI's one line).
  const summary = issues
    .slice(0, LISTED_ISSUES)
    .map((issue) => `${issue.path || '(root)'} (${issue.line}:${issue.column}): ${issue.message}`);
  if (issues.length > LISTED_ISSUES)
    summary.push(`and ${issues.length - LISTED_ISSUES} more (details.issues lists every one)`);
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

type Tree = ReturnType<typeof parseJsonTree>;

function toIssues(issue: z.core.$ZodIssue, tree: Tree, prefix: readonly PropertyKey[] = []): ConfigIssue[] {
  const base = [...prefix, ...issue.path].map((key) => (typeof key === 'symbol' ? String(key) : key));
  if (issue.code === 'invalid_union') return unionIssues(issue, base, tree);
  if (issue.code !== 'unrecognized_keys') return [issueAt(tree, base, issue.message)];
  return issue.keys.map((key) => issueAt(tree, [...base, key], `unknown key "${key}"`, true));
}

/** `message` at `path`, placed at its value (or, for a key that is the problem, at the key). */
function issueAt(tree: Tree, path: (string | number)[], message: string, atKey = false): ConfigIssue {
  const located = locateJsonPath(tree, path);
  const position = !atKey && located.exact ? located.node.start : (located.keyStart ?? located.node.start);
  return { path: path.join('.'), message, line: position.line, column: position.column };
}

/**
 * A value no branch of a union accepts: the problems every branch has (an absolute `path`, a
 * number where an object goes) at their own paths, then — when the branches also disagree on
 * what is missing — the union's own message naming the shapes it accepts, rather than zod's
 * bare `Invalid input`.
 */
function unionIssues(
  issue: z.core.$ZodIssueInvalidUnion,
  path: (string | number)[],
  tree: Tree,
): ConfigIssue[] {
  const keyOf = (inner: z.core.$ZodIssue): string =>
    `${inner.path.map(String).join('.')}\u0000${inner.message}`;
  const [first = [], ...rest] = issue.errors;
  const shared = first.filter((inner) =>
    rest.every((branch) => branch.some((other) => keyOf(other) === keyOf(inner))),
  );
  const issues = shared.flatMap((inner) => toIssues(inner, tree, path));
  const differ = issue.errors.some((branch) => branch.length > shared.length);
  return differ || issues.length === 0 ? [...issues, issueAt(tree, path, issue.message)] : issues;
}
