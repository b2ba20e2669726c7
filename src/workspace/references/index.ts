export {
  type BadReference,
  type BadReferenceReason,
  type BadReferenceSite,
  badReferencesOf,
  emptyRangeReference,
  invalidReferenceError,
  toBadReference,
} from './bad-reference.ts';
export {
  type EmptyRangeReference,
  parseReferences,
  type ScannedReferences,
  scanReferences,
} from './parse-references.ts';
export {
  type BlockReference,
  formatReference,
  type InlineReference,
  type LineReference,
  type Reference,
} from './reference.ts';
export { type LoadedFile, type ResolvedReference, resolveReference } from './resolve-reference.ts';
