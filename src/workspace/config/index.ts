export {
  CONTEXT_CONFIG_VERSION,
  type ConfigReference,
  type ContextConfig,
  type ContextConfigInput,
  contextConfigSchema,
  type Injection,
} from './context-config-schema.ts';
export { type ConfigIssue, parseContextConfig, safeParseContextConfig } from './parse-context-config.ts';
