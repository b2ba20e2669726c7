export { parseReferences } from './parse-references.ts';
export {
  type BlockReference,
  formatReference,
  type InlineReference,
  type LineReference,
  type Reference,
} from './reference.ts';
export { type LoadedFile, type ResolvedReference, resolveReference } from './resolve-reference.ts';
