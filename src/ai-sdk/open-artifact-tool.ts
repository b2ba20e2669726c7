import { jsonSchema, tool } from 'ai';
import { OPEN_ARTIFACT_DEFINITION } from '../core/artifact-handles.ts';
import { type ReadArtifactInput, type ReadArtifactOptions, readArtifact } from '../core/artifact-pages.ts';
import type { ArtifactHandleStore } from '../core/index.ts';

/**
 * The AI SDK tool that reads a tool output kept out of the prompt as an artifact, a page at a
 * time: add it as `open_artifact` next to your tools, with the store of the hook that made the
 * placeholders. Each page is sized in tokens, with the counter of the last call compiled with
 * the store, to fit what that call left; its first line says where the next page starts.
 * @example
 * tools: { ...tools, open_artifact: openArtifactTool(middleware.store) }
 */
export function openArtifactTool(store: ArtifactHandleStore, options: ReadArtifactOptions = {}) {
  return tool({
    description: OPEN_ARTIFACT_DEFINITION.description,
    inputSchema: jsonSchema<ReadArtifactInput>(OPEN_ARTIFACT_DEFINITION.inputSchema as never),
    execute: async (input: ReadArtifactInput) => readArtifact(store, input, options).output,
  });
}
