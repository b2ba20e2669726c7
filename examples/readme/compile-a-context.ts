import { readFile } from 'node:fs/promises';
import { generateText } from 'ai';
import { compileContext, createBlock, formatReport, type Message, toAiSdk } from '../../src/core/index.ts';
import { createOfflineModel } from '../../src/llm/index.ts';
import { getTokenCounter } from '../../src/tokenizers/index.ts';

// Run from the repository's root (the example session's files).
const raftNotes = await readFile('examples/notebook/raft-consensus/ground-truth.md', 'utf8');
const history: Message[] = JSON.parse(
  await readFile('examples/notebook/raft-consensus/messages.json', 'utf8'),
);
const model = createOfflineModel(); // or any AI SDK model: openai('gpt-4o-mini'), anthropic(…)

const counter = getTokenCounter('gpt-4o'); // exact o200k_base, cached by content hash
const notes = createBlock(
  { id: 'raft.md', layer: 'knowledge__context', source: 'notes', content: raftNotes, priority: 0.8 },
  counter,
);
const { messages, report, maxOutputTokens } = await compileContext(
  {
    systemPrompt: 'You are a patient distributed-systems tutor.',
    contexts: { framework__context: 'Answer in at most 200 words.' },
    blocks: [notes],
    history, // the checkpoint messages, oldest first
    query: { id: 'u-42', role: 'user', content: 'Why must leaders only commit current-term entries?' },
  },
  { counter, window: 128_000 },
);
console.log(formatReport(report)); // per-layer tokens, kept / trimmed / dropped with reasons
const result = await generateText({ model, ...toAiSdk(messages), maxOutputTokens });
console.log(result.text);
