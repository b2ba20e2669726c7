export { formatBlockOutline } from './block-tools.ts';
export { capOutput, DEFAULT_MAX_OUTPUT_CHARS } from './cap-output.ts';
export { createWorkspaceTools, type WorkspaceTools } from './create-workspace-tools.ts';
export {
  createWorkspaceToolset,
  type WorkspaceToolDefinition,
  type WorkspaceToolset,
  type WorkspaceToolsOptions,
} from './create-workspace-toolset.ts';
export { describeReadFileParts } from './describe-read-file-parts.ts';
export { splitLines } from './file-tools.ts';
export { createMatcher, DEFAULT_MAX_SEARCH_WORK, type LineMatcher, snippet } from './search-tool.ts';
export { type CurateMessages, DEFAULT_READ_ONLY_FILES, type DismissRequest } from './tool-context.ts';
export {
  dismissMemoryInput,
  listFilesInput,
  readBlockInput,
  readFileInput,
  searchInput,
  writeFileInput,
} from './tool-schemas.ts';
