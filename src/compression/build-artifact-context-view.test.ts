import { describe, expect, it } from 'vitest';
import { createCharCounter } from '../testing/index.ts';
import { buildArtifactContextView } from './build-artifact-context-view.ts';
import { createCompressionState } from './compression-state.ts';
import { registerArtifact } from './register-artifact.ts';
import { registerToolEvidence } from './register-tool-evidence.ts';
import { formatThreadId } from './thread-id.ts';
import { todoContextBlocks } from './todo-context-blocks.ts';

const counter = createCharCounter();
const threadId = formatThreadId({ app: 'etl', userId: 'u1', sessionId: 's1' });

function withEvidence(count: number) {
  const base = createCompressionState({ threadId });
  let artifacts = registerArtifact(
    base.artifacts,
    {
      kind: 'sql_job',
      name: 'sales',
      agentId: 'sql_developer',
      content: 'INSERT INTO dw.sales SELECT 1',
      turnIndex: 1,
    },
    { clock: () => 0 },
  ).state;
  for (let run = 1; run <= count; run++) {
    artifacts = registerToolEvidence(
      artifacts,
      {
        toolName: 'dry_run',
        agentId: 'tester',
        input: `run ${run}`,
        output: `run ${run}: ok`,
        artifactId: 'sql_job:sales@v1',
        turnIndex: 1 + run,
      },
      { clock: () => run },
    ).state;
  }
  return { ...base, artifacts };
}

describe('buildArtifactContextView evidence per job', () => {
  it('shows exactly maxEvidencePerJob evidence lines, newest first, and none for 0', () => {
    const { index } = withEvidence(3).artifacts;
    const evidenceLines = (maxEvidencePerJob: number) =>
      buildArtifactContextView(index, { counter, maxTokens: 5000, maxEvidencePerJob })
        .text.split('\n')
        .filter((line) => line.trimStart().startsWith('evidence '))
        .map((line) => line.trim().split(' ')[1]);
    expect(evidenceLines(0)).toEqual([]);
    expect(evidenceLines(1)).toEqual(['ev3']);
    expect(evidenceLines(2)).toEqual(['ev3', 'ev2']);
    expect(evidenceLines(9)).toEqual(['ev3', 'ev2', 'ev1']);
  });

  it('rejects a negative or fractional maxEvidencePerJob with a typed error', () => {
    const { index } = withEvidence(1).artifacts;
    for (const maxEvidencePerJob of [-1, 0.5, Number.NaN])
      expect(() => buildArtifactContextView(index, { counter, maxTokens: 100, maxEvidencePerJob })).toThrow(
        expect.objectContaining({ code: 'invalid-argument', path: 'maxEvidencePerJob' }),
      );
  });

  it('lists no tool evidence in the context after /compress', () => {
    const state = withEvidence(2);
    const text = (clipping: boolean) =>
      todoContextBlocks(
        { ...state, forceContextClipping: clipping, clippingScope: 'all' },
        { counter, maxTokens: 2000 },
      )
        .map((block) => block.content)
        .join('\n');
    expect(text(false)).toContain('evidence ev2 dry_run ok');
    expect(text(true)).toContain('sql_job:sales@v1');
    expect(text(true)).not.toContain('evidence ev');
  });
});
