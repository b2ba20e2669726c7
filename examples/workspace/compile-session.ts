import { createFileSessionStore, createSessionEngine } from '../../src/session/index.ts';
import { openWorkspace } from '../../src/workspace/index.ts';

// The compile every entry point sends: the notebook's preview and chat, `ctxloom compile`, MCP.
const workspace = openWorkspace({ root: 'examples/notebook' });
const engine = createSessionEngine({ workspace, store: createFileSessionStore({ workspace }) });
export const { systemPrompt, messages, report, aiSdk, openai, anthropic, warnings } = await engine.compile(
  'raft-consensus',
  { query: '选举限制是什么？' },
);
