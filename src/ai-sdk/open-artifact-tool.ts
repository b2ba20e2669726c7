import { jsonSchema, tool } from 'ai';
import { OPEN_ARTIFACT_DEFINITION, type ReadArtifactInput, readArtifact } from '../core/artifact-handles.ts';
import type { ArtifactHandleStore } from '../core/index.ts';

/**
 * The AI SDK tool that re-opens a tool output kept out of the prompt as an artifact: add it
 * as `open_artifact` next to your tools, with the store of the hook that made the placeholders.
 * @example
 * tools: { ...tools, open_artifact: openArtifactTool(middleware.store) }
 */
export function openArtifactTool(store: ArtifactHandleStore) {
  return tool({
    description: OPEN_ARTIFACT_DEFINITION.description,
    inputSchema: jsonSchema<ReadArtifactInput>(OPEN_ARTIFACT_DEFINITION.inputSchema as never),
    execute: async (input: ReadArtifactInput) => readArtifact(store, input),
  });
}
