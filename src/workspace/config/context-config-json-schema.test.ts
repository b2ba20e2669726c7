import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONTEXT_CONFIG_SCHEMA_FILE, contextConfigJsonSchema } from './context-config-json-schema.ts';
import { parseContextConfig } from './parse-context-config.ts';

const root = new URL('../../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

describe('the published context-config JSON Schema', () => {
  it('is exactly what the zod schema generates (npm run schema rewrites it)', () => {
    expect(JSON.parse(read(CONTEXT_CONFIG_SCHEMA_FILE))).toEqual(contextConfigJsonSchema());
  });

  it('is referenced by the example manifest, which still parses', () => {
    const file = 'examples/notebook/raft-consensus/context-config.json';
    const text = read(file);
    const config = parseContextConfig(text, file);
    expect(config.$schema).toBe('../../../schemas/context-config.schema.json');
    expect(new URL(config.$schema as string, new URL(file, root)).href).toBe(
      new URL(CONTEXT_CONFIG_SCHEMA_FILE, root).href,
    );
  });

  it('describes strict objects: an unknown key is not allowed', () => {
    const schema = contextConfigJsonSchema() as { additionalProperties?: unknown; properties: object };
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(['$schema', 'systemPrompt', 'query']),
    );
  });
});
