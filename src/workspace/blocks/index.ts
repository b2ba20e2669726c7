export { BLOCK_PATH_SEPARATOR, type Block, type BlockSource } from './block.ts';
export { disambiguateSegments, splitBlockId, toIdSegment } from './block-path.ts';
export {
  BLOCK_SIDECAR_VERSION,
  type BlockSidecar,
  DEFAULT_RENAME_WORK,
  parseBlockSidecar,
  type SyncBlockSidecarOptions,
  sidecarPathFor,
  syncBlockSidecar,
} from './block-sidecar.ts';
export { flattenBlocks, getBlockById } from './flatten-blocks.ts';
export { blockSectionText, hasBlockParser, parseBlocks } from './parse-blocks.ts';
export { parseJsonBlocks } from './parse-json-blocks.ts';
export {
  assignPathIds,
  type MarkdownDocument,
  type MarkdownPreamble,
  type ParseMarkdownOptions,
  parseMarkdownBlocks,
  parseMarkdownDocument,
} from './parse-markdown-blocks.ts';
export {
  type BlockMatch,
  type BlockSearchBudget,
  type ClosestBlock,
  createBlockSearchBudget,
  DEFAULT_CLOSEST_BLOCK_WORK,
  DEFAULT_MESSAGE_CLOSEST_BLOCK_WORK,
  findClosestBlock,
  indexBlocks,
  MAX_FUZZY_BLOCK_ID_CHARS,
  type ResolveBlockOptions,
  type ResolvedBlock,
  resolveBlock,
} from './resolve-block.ts';
export { similarity } from './similarity.ts';
export { DEFAULT_CHUNK_CHARS, findChunkCuts } from './split-markdown-chunks.ts';
