import { z } from 'zod';
import { CtxloomError } from '../../core/index.ts';
import { issueLocation, parseJsonTree } from '../json/parse-json-tree.ts';

/** A session record, thin by design (seed 003): exactly `{ id, concept, createdAt }`. */
export const sessionRecordSchema = z.strictObject({
  id: z
    .string()
    .regex(/^[\p{L}\p{N}][\p{L}\p{N}._-]{0,127}$/u, 'a session id is letters, digits, ".", "_" or "-"'),
  concept: z.string(),
  createdAt: z.string(),
});

/** One entry of `sessions.json`. */
export type SessionRecord = z.infer<typeof sessionRecordSchema>;

/** Parses `sessions.json` (an array of {@link SessionRecord}); errors name the entry. */
export function parseSessionsIndex(text: string, file = 'sessions.json'): SessionRecord[] {
  const tree = parseJsonTree(text, file);
  const result = z.array(sessionRecordSchema).safeParse(tree.value);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new CtxloomError({
      code: 'invalid-config',
      message: `invalid sessions index: ${issue?.message ?? 'unknown problem'}`,
      file,
      ...issueLocation(tree, issue?.path ?? []),
      cause: result.error,
    });
  }
  return result.data;
}
