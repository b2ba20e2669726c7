export { CONTEXT_CONFIG_SCHEMA_FILE, contextConfigJsonSchema } from './context-config-json-schema.ts';
export {
  CONTEXT_CONFIG_VERSION,
  type ConfigReference,
  type ContextConfig,
  type ContextConfigInput,
  contextConfigSchema,
  type Injection,
} from './context-config-schema.ts';
export { type ConfigIssue, parseContextConfig, safeParseContextConfig } from './parse-context-config.ts';
