// Writes schemas/context-config.schema.json from the zod schema (`npm run schema`).
import { writeFileSync } from 'node:fs';
import {
  CONTEXT_CONFIG_SCHEMA_FILE,
  contextConfigJsonSchema,
} from '../src/workspace/config/context-config-json-schema.ts';

const file = new URL(`../${CONTEXT_CONFIG_SCHEMA_FILE}`, import.meta.url);
writeFileSync(file, `${JSON.stringify(contextConfigJsonSchema(), null, 2)}\n`);
console.log(`wrote ${CONTEXT_CONFIG_SCHEMA_FILE}`);
