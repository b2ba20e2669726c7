import type { JsonValue } from '../core/index.ts';
import { canonicalJson, clip, sha256Hex } from './artifact-content.ts';
import type { ArtifactStoreState, ToolEvidence } from './artifact-schema.ts';
import type { ArtifactOptions } from './register-artifact.ts';

/** Input of {@link registerToolEvidence}. */
export interface RegisterToolEvidenceInput {
  toolName: string;
  agentId: string;
  input: string | JsonValue;
  output: string | JsonValue;
  /** False for failed calls; default true. */
  ok?: boolean;
  /** The artifact the call checked or produced, if any. */
  artifactId?: string;
  turnIndex: number;
}

/**
 * Records a tool call as evidence: SHA-256 and length of its input and output and a short
 * preview of the output (never the full payload). Pure: returns a new state and the entry.
 */
export function registerToolEvidence(
  state: ArtifactStoreState,
  input: RegisterToolEvidenceInput,
  options: ArtifactOptions = {},
): { state: ArtifactStoreState; evidence: ToolEvidence } {
  const inputText = typeof input.input === 'string' ? input.input : canonicalJson(input.input);
  const outputText = typeof input.output === 'string' ? input.output : canonicalJson(input.output);
  const evidence: ToolEvidence = {
    id: `ev${state.index.evidence.length + 1}`,
    toolName: input.toolName,
    agentId: input.agentId,
    artifactId: input.artifactId ?? null,
    ok: input.ok ?? true,
    inputSha256: sha256Hex(inputText),
    outputSha256: sha256Hex(outputText),
    inputLength: inputText.length,
    outputLength: outputText.length,
    preview: clip(outputText.replace(/\s+/gu, ' ').trim(), Math.min(options.previewChars ?? 160, 160)),
    turnIndex: input.turnIndex,
    createdAt: (options.clock ?? Date.now)(),
  };
  return {
    state: { ...state, index: { ...state.index, evidence: [...state.index.evidence, evidence] } },
    evidence,
  };
}
