import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileContext, type Message } from '../../src/core/index.ts';
import { createKnowledgeBase, createQueryTool, createRetriever } from '../../src/retrieval/index.ts';
import {
  createL1RecentSource,
  createL2ImportantSource,
  createUnifiedRetrievalSource,
  openMemoryStore,
} from '../../src/sources/index.ts';
import { getTokenCounter } from '../../src/tokenizers/index.ts';

const counter = getTokenCounter('gpt-4o');
const messages: Message[] = [
  { id: 'm1', role: 'user', content: 'We must keep two weeks free in August for the family trip.' },
  { id: 'm2', role: 'assistant', content: 'Noted: two weeks in August stay free.' },
  { id: 'm3', role: 'user', content: 'Which days are public holidays next year?' },
  { id: 'm4', role: 'assistant', content: 'New Year, Easter Monday, May 1 and Christmas.' },
];

const path = join(await mkdtemp(join(tmpdir(), 'memory-')), 'memory.db');
const memory = openMemoryStore({ path, agentId: 'tutor', sessionId: 's1' });
await memory.append(messages); // scored for L2, indexed for L4
const kb = createKnowledgeBase({ name: 'handbook' });
await kb.add([
  {
    id: 'leave#1',
    text: 'Employees get 25 days of paid leave a year. Unused days carry over until March 31.',
    provenance: { file: 'hr.md', startLine: 4, endLine: 9 },
  },
  {
    id: 'expenses#1',
    text: 'Travel expenses are reimbursed within 30 days of a receipt being filed.',
    provenance: { file: 'hr.md', startLine: 12, endLine: 15 },
  },
]);

export const compiled = await compileContext(
  {
    systemPrompt: 'You help employees plan their leave.',
    query: { id: 'u5', role: 'user', content: 'How many days of paid leave can I take in August?' },
  },
  {
    counter,
    window: 128_000,
    sources: [
      createL1RecentSource({ memory, maxMessages: 2 }), // the newest turn, as history
      createL2ImportantSource({ memory }), // m1: a requirement ("must")
      createUnifiedRetrievalSource({ memory, knowledgeBases: [kb] }),
    ],
    allocationRatios: { L1_recent: 0.3, L2_important: 0.2, retrieval: 0.15 },
  },
);
for (const layer of compiled.report.layers) console.log(layer.layer, layer.tokens);

// the active channel: the same retrieval as an AI SDK tool, for generateText({ model, tools, … })
export const tools = {
  query: createQueryTool({ retriever: createRetriever({ sources: [memory.recallSource(), kb] }), counter }),
};
