import type { z } from 'zod';

type Issue = z.ZodError['issues'][number];

/** The first problem of a failed message parse: its JSON path and what is wrong there. */
export interface MessageIssue {
  path: (string | number)[];
  message: string;
}

/**
 * The first issue of a failed message parse, followed into unions: a `content` that is neither
 * a string nor valid parts reports the part's own problem (`3.content.0.output.value`,
 * `expected string`) rather than the union's `Invalid input` at `3.content`. Of a union's
 * branches, the one that got deepest into the value is followed (the others failed on its type).
 */
export function firstMessageIssue(error: z.ZodError): MessageIssue {
  const issue = error.issues[0];
  if (issue === undefined) return { path: [], message: 'unknown problem' };
  return follow(issue, []);
}

function follow(issue: Issue, prefix: readonly PropertyKey[]): MessageIssue {
  const path = [...prefix, ...issue.path];
  if (issue.code === 'invalid_union') {
    let deepest: Issue | undefined;
    for (const branch of issue.errors) {
      const first = branch[0];
      if (first !== undefined && first.path.length > (deepest?.path.length ?? 0)) deepest = first;
    }
    if (deepest !== undefined) return follow(deepest, path);
  }
  return {
    path: path.map((key) => (typeof key === 'symbol' ? String(key) : key)),
    message: issue.message,
  };
}
