export {
  createSandbox,
  DEFAULT_MAX_READ_BYTES,
  DEFAULT_MAX_WRITE_BYTES,
  type ListOptions,
  type Sandbox,
  type SandboxEntry,
  type SandboxOptions,
  type TextEdit,
} from './create-sandbox.ts';
export { decodeText } from './decode-text.ts';
export { DEFAULT_LOCK_TIMEOUT_MS } from './file-lock.ts';
export { fsErrorCode, mapFsError } from './map-fs-error.ts';
export { runSerialised } from './serial-queue.ts';
export {
  DEFAULT_MAX_PATH_LENGTH,
  MAX_SEGMENT_BYTES,
  type ValidatePathOptions,
  validateRelativePath,
} from './validate-path.ts';
