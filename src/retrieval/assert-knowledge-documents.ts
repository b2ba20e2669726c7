import { CtxloomError } from '../core/index.ts';

/**
 * Throws `invalid-argument`, naming the entry (`documents.3.text`), when `documents` is not an
 * array of `{ id, text }` with a non-empty string id and a string text. Checked before any
 * document is embedded or indexed, so a bad entry adds nothing.
 */
export function assertKnowledgeDocuments(documents: unknown): void {
  if (!Array.isArray(documents))
    throw invalid('documents', `documents must be an array, got ${kindOf(documents)}`);
  documents.forEach((document: unknown, index) => {
    const path = `documents.${index}`;
    if (typeof document !== 'object' || document === null || Array.isArray(document))
      throw invalid(path, `a document must be an object, got ${kindOf(document)}`);
    const { id, text } = document as Record<string, unknown>;
    if (typeof id !== 'string' || id === '')
      throw invalid(`${path}.id`, `a document needs a non-empty string id, got ${kindOf(id)}`);
    if (typeof text !== 'string')
      throw invalid(`${path}.text`, `document "${id}": text must be a string, got ${kindOf(text)}`);
  });
}

function invalid(path: string, message: string): CtxloomError {
  return new CtxloomError({ code: 'invalid-argument', message, path });
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 40));
  return typeof value === 'object' || value === undefined
    ? String(typeof value)
    : `a ${typeof value} (${String(value)})`;
}
