import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ContextSource, Message } from '../core/index.ts';
import { createKnowledgeBase } from '../retrieval/knowledge-base.ts';
import { createAgentSource } from './agent-source.ts';
import { createInheritedSource } from './inherited-source.ts';
import { createL1RecentSource } from './l1-recent-source.ts';
import { createL2ImportantSource } from './l2-important-source.ts';
import { openMemoryStore } from './memory-store.ts';
import { createPromptSource } from './prompt-source.ts';
import { openSharedPool } from './shared-pool.ts';
import { createSharedPoolSource } from './shared-pool-source.ts';
import { createSkillSource } from './skill-source.ts';
import { makeBudget, makeRequest } from './test-request.test-support.ts';
import { createToolSource } from './tool-source.ts';
import { createUnifiedRetrievalSource } from './unified-retrieval-source.ts';
import { createUserSource } from './user-source.ts';

const history: Message[] = [
  { id: 'u1', role: 'user', content: 'We must deploy the API to Frankfurt before Friday.' },
  {
    id: 'a1',
    role: 'assistant',
    content: [{ type: 'tool-call', toolCallId: 't1', toolName: 'deploy', input: { region: 'fra' } }],
  },
  {
    id: 'r1',
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 't1',
        toolName: 'deploy',
        output: { type: 'error-text', value: 'quota exceeded' },
      },
    ],
  },
  { id: 'u2', role: 'user', content: '不对，我们决定用东京区域。' },
  { id: 'a2', role: 'assistant', content: 'Understood: Tokyo region, decided.' },
];

async function allSources(): Promise<ContextSource[]> {
  const memory = openMemoryStore({ agentId: 'worker', sessionId: 's' });
  await memory.append(history);
  const parent = openMemoryStore({ agentId: 'lead', sessionId: 's' });
  await parent.append([{ id: 'p1', role: 'user', content: 'Requirement: budgets must stay under 100 USD.' }]);
  const pool = openSharedPool();
  pool.publish({ namespace: 'team', key: 'region', content: 'Production runs in Tokyo.', publisher: 'lead' });
  const kb = createKnowledgeBase({ name: 'runbook' });
  await kb.add([
    { id: 'deploy', text: 'Deploy with make deploy. Quotas are raised by ops. 配额由运维提升。' },
  ]);
  return [
    createL1RecentSource({ memory }),
    createL2ImportantSource({ memory }),
    createInheritedSource({ parent: parent.view() }),
    createSharedPoolSource({ pool, namespaces: ['team'] }),
    createUnifiedRetrievalSource({ memory, knowledgeBases: [kb], excludeHistory: false }),
    createSkillSource({
      skills: [
        {
          name: 'deploy',
          description: 'Deploy services',
          instructions: 'Run make deploy; check quotas first.',
        },
      ],
    }),
    createToolSource({ tools: [{ name: 'deploy', description: 'Deploys a service to a region' }] }),
    createPromptSource({
      fragments: [{ id: 'rules', template: 'Be brief. Region: {{region}}.' }],
      variables: { region: 'Tokyo' },
    }),
    createUserSource({
      profile: () => ({ name: 'Mei', preferences: ['answers in Chinese'], facts: ['on-call this week'] }),
    }),
    createAgentSource({
      state: () => ({ goal: 'Deploy v2', plan: [{ step: 'raise quota', status: 'pending' }] }),
    }),
  ];
}

describe('every source', () => {
  it('returns blocks of its own layer and name, with counted tokens, within any budget', async () => {
    const sources = await allSources();
    expect(new Set(sources.map((source) => source.name)).size).toBe(sources.length);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 400 }),
        fc.constantFrom('', 'deploy region quota', '东京区域', 'budget?', '😀'),
        async (maxTokens, query) => {
          for (const source of sources) {
            const request = makeRequest(query, []);
            const blocks = await source.collect(request, makeBudget(maxTokens, source.name));
            expect(blocks.reduce((sum, block) => sum + block.tokens, 0)).toBeLessThanOrEqual(maxTokens);
            for (const block of blocks) {
              expect(block.layer).toBe(source.layer);
              expect(block.source).toBe(source.name);
              expect(block.priority).toBeGreaterThanOrEqual(0);
              expect(block.priority).toBeLessThanOrEqual(1);
              if (block.layer !== 'history')
                expect(block.tokens).toBe(request.counter.countText(block.content));
            }
            expect(new Set(blocks.map((block) => block.id)).size).toBe(blocks.length);
          }
        },
      ),
      { numRuns: 30 },
    );
  });

  it('fills something for a relevant query and a generous budget', async () => {
    for (const source of await allSources()) {
      const blocks = await source.collect(
        makeRequest('deploy region quota budget'),
        makeBudget(2000, source.name),
      );
      expect(blocks.length, source.name).toBeGreaterThan(0);
    }
  });
});
