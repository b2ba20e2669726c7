import { describe, expect, it } from 'vitest';
import { compileContext, type Message } from '../core/index.ts';
import { createKnowledgeBase } from '../retrieval/knowledge-base.ts';
import { createCharCounter } from '../testing/index.ts';
import { openMemoryStore } from './memory-store.ts';
import { makeBudget, makeRequest } from './test-request.test-support.ts';
import { createUnifiedRetrievalSource } from './unified-retrieval-source.ts';

async function setup() {
  const memory = openMemoryStore({ agentId: 'a', sessionId: 's' });
  await memory.append([
    { id: 'm1', role: 'user', content: 'Our staging cluster runs in Frankfurt.' },
    { id: 'm2', role: 'assistant', content: 'Understood, Frankfurt staging.' },
    { id: 'm3', role: 'user', content: 'Lunch is at noon.' },
  ]);
  const kb = createKnowledgeBase({ name: 'runbook' });
  await kb.add([
    {
      id: 'deploy',
      text: 'Deploy to staging with `make deploy ENV=staging`. It takes ten minutes.',
      provenance: { file: 'runbook.md', startLine: 10, endLine: 12 },
    },
  ]);
  return { memory, kb };
}

describe('createUnifiedRetrievalSource', () => {
  it('recalls from memory L4 and knowledge bases into knowledge__context with provenance', async () => {
    const { memory, kb } = await setup();
    const source = createUnifiedRetrievalSource({ memory: memory.view(), knowledgeBases: [kb] });
    const blocks = await source.collect(makeRequest('how do I deploy to staging?'), makeBudget(1000));
    expect(blocks.map((block) => block.metadata.origin)).toContain('runbook');
    expect(blocks.map((block) => block.metadata.messageId)).toContain('m1');
    expect(blocks.find((block) => block.metadata.origin === 'runbook')?.provenance).toEqual({
      file: 'runbook.md',
      startLine: 10,
      endLine: 12,
    });
    expect(
      blocks.every((block) => block.layer === 'knowledge__context' && block.source === 'retrieval'),
    ).toBe(true);
  });

  it('skips memory hits already in the request history', async () => {
    const { memory } = await setup();
    const history: Message[] = [
      { id: 'm1', role: 'user', content: 'Our staging cluster runs in Frankfurt.' },
    ];
    const blocks = await createUnifiedRetrievalSource({ memory: memory.view() }).collect(
      makeRequest('Frankfurt staging', history),
      makeBudget(1000),
    );
    const ids = blocks.map((block) => block.metadata.messageId);
    expect(ids).not.toContain('m1');
    expect(ids[0]).toBe('m2');
  });

  it('feeds the compiled context through compileContext within its allocation', async () => {
    const { memory, kb } = await setup();
    const compiled = await compileContext(
      { systemPrompt: 'You are ops.', query: 'how do I deploy to staging?' },
      {
        counter: createCharCounter(),
        window: 4000,
        sources: [createUnifiedRetrievalSource({ memory: memory.view(), knowledgeBases: [kb] })],
        allocationRatios: { retrieval: 0.1 },
      },
    );
    expect(compiled.contexts.knowledge__context).toContain('make deploy ENV=staging');
    const retrieved = compiled.kept.filter((block) => block.source === 'retrieval');
    expect(retrieved.reduce((sum, block) => sum + block.tokens, 0)).toBeLessThanOrEqual(0.1 * 3000 + 1);
  });
});
