import { fileURLToPath } from 'node:url';
import { createCharCounter, describeContextSourceConformance } from 'ctxloom/testing';
import { describe, expect, it } from 'vitest';
import { buildRetrievalDocuments, createWorkspaceRetrievalSource } from '../compile/workspace-retrieval.ts';
import { openWorkspace } from '../workspace.ts';
import { createWorkspaceBlocksSource } from './create-workspace-blocks-source.ts';

const root = fileURLToPath(new URL('../../../examples/notebook', import.meta.url));
const workspace = openWorkspace({ root });
const sessionId = 'raft-consensus';
const blocks = [
  'profile.md#学习目标/已有基础',
  'milestones.md',
  'ground-truth.md#Raft 知识要点（ground truth）/提交规则',
];

describeContextSourceConformance(
  'createWorkspaceBlocksSource',
  () => createWorkspaceBlocksSource({ workspace, sessionId, blocks }),
  {
    queries: ['提交规则', 'anything'],
  },
);

describeContextSourceConformance(
  'createWorkspaceRetrievalSource',
  async () => {
    const files = await Promise.all(
      ['ground-truth.md', 'guidance.md'].map((path) =>
        workspace.readParsed(workspace.session(sessionId), path),
      ),
    );
    return createWorkspaceRetrievalSource({ documents: buildRetrievalDocuments(files), topK: 5 });
  },
  { queries: ['提交规则', 'RequestVote 投票', 'leader election term'] },
);

describe('createWorkspaceBlocksSource', () => {
  it('reads the blocks in order with provenance and skips what does not fit', async () => {
    const source = createWorkspaceBlocksSource({ workspace, sessionId, blocks });
    const request = { query: '', history: [], counter: createCharCounter() };
    const all = await source.collect(request, { maxTokens: 100_000, source: source.name });
    expect(all.map((block) => block.provenance)).toEqual([
      { file: 'profile.md', startLine: 20, endLine: 24 },
      { file: 'milestones.md', startLine: 1, endLine: 11 },
      { file: 'ground-truth.md', startLine: 60, endLine: 64 },
    ]);
    const small = await source.collect(request, {
      maxTokens: (all[0]?.tokens ?? 0) + (all[2]?.tokens ?? 0),
      source: source.name,
    });
    expect(small.map((block) => block.provenance?.file)).toEqual(['profile.md', 'ground-truth.md']);
  });

  it('names a missing block with the closest one', async () => {
    const source = createWorkspaceBlocksSource({ workspace, sessionId, blocks: ['profile.md#量子计算'] });
    await expect(
      source.collect(
        { query: '', history: [], counter: createCharCounter() },
        { maxTokens: 1000, source: source.name },
      ),
    ).rejects.toMatchObject({ code: 'not-found', file: 'profile.md' });
  });
});
