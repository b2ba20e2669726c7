import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  chineseFile,
  hasEveryLine,
  nextArtifactCall,
  toolResultTexts,
} from '../ai-sdk/follow-placeholders.test-support.ts';
import { countCallTokens } from '../ai-sdk/index.ts';
import { createTestNotebook } from '../server/test-workspace.test-support.ts';
import { getTokenCounter } from '../tokenizers/index.ts';
import { createSessionEngine } from './create-session-engine.ts';
import { createFileSessionStore } from './file-session-store.ts';

const SESSION = 'raft-consensus';
const counter = getTokenCounter('gpt-4o');
const USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

let notebook: Awaited<ReturnType<typeof createTestNotebook>>;
beforeEach(async () => {
  notebook = await createTestNotebook();
});
afterEach(async () => {
  await notebook.cleanup();
});

/** A streamed provider that reads `path`, then calls `open_artifact` as the newest tool result says. */
function followingModel(path: string) {
  return new MockLanguageModelV4({
    doStream: async ({ prompt }) => {
      const hasResult = toolResultTexts(prompt).length > 0;
      const artifact = nextArtifactCall(prompt);
      const chunks: LanguageModelV4StreamPart[] =
        !hasResult || artifact !== undefined
          ? [
              { type: 'stream-start', warnings: [] },
              {
                type: 'tool-call',
                toolCallId: `call-${prompt.length}`,
                toolName: hasResult ? 'open_artifact' : 'read_file',
                input: JSON.stringify(hasResult ? artifact : { path }),
              },
              { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: USAGE },
            ]
          : [
              { type: 'stream-start', warnings: [] },
              { type: 'text-start', id: 't' },
              { type: 'text-delta', id: 't', delta: 'Read.' },
              { type: 'text-end', id: 't' },
              { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE },
            ];
      return { stream: simulateReadableStream({ chunks }) };
    },
  });
}

/** Runs one turn that reads a 5,500-token Chinese file; returns what the provider received and the logged reports. */
async function readChineseFile() {
  const config = JSON.parse(await readFile(join(notebook.root, SESSION, 'context-config.json'), 'utf8'));
  expect(config.budget.window).toBe(16_000);
  const file = chineseFile(counter, 5500);
  await writeFile(join(notebook.root, SESSION, 'raft-zh.md'), file);
  const model = followingModel('raft-zh.md');
  const workspace = notebook.workspace;
  let next = 0;
  const engine = createSessionEngine({
    workspace,
    store: createFileSessionStore({ workspace }),
    model: { model, spec: 'recording', offline: false },
    createId: () => `t-${++next}`,
    now: () => new Date('2026-03-01T10:00:00.000Z'),
    maxSteps: 8,
  });
  const turn = await engine.runTurn({
    sessionId: SESSION,
    text: '读一下 raft-zh.md 并总结。',
    messageId: 'u-1',
  });
  for await (const _ of turn.stream);
  const received = model.doStreamCalls as LanguageModelV4CallOptions[];
  // A long session compacts before a call that would pass its soft limit; the summariser's own
  // calls are logged too (agent `summarizer`) — the chat model's calls are the rest, in order.
  const calls = (await engine.listCalls(SESSION)).filter((call) => call.agentId !== 'summarizer');
  // Each call is sent as its logged report says, within the input budget; the read is larger
  // than 40 % of the input budget, so it is a placeholder first, naming both ways to read it.
  expect(received.length).toBeGreaterThanOrEqual(3);
  for (const [step, call] of received.entries()) {
    const report = calls[step]?.report;
    expect(countCallTokens(call, counter)).toBe(report?.totalTokens);
    expect(report?.totalTokens).toBeLessThanOrEqual(report?.inputBudget ?? 0);
  }
  const placeholder = JSON.stringify(received[1]?.prompt);
  expect(placeholder).toContain('call open_artifact with');
  expect(placeholder).toContain('call read_file with {\\"path\\":\\"raft-zh.md\\",\\"startLine\\":1');
  // Never a placeholder of a page: the file's handle is the only one ever named.
  const handles = new Set(JSON.stringify(received.map((call) => call.prompt)).match(/art_[0-9a-f]+/gu));
  expect(handles.size).toBe(1);
  return { file, received };
}

describe('a large tool output through engine.runTurn', () => {
  it('puts a 5,500-token Chinese file in the model input within 3 calls, with a 16k window', async () => {
    // A new conversation in the Raft notebook: its references and profile, no history yet.
    await writeFile(join(notebook.root, SESSION, 'messages.json'), '[]');
    const { file, received } = await readChineseFile();
    const first = received.findIndex((call) => hasEveryLine([call.prompt], file));
    expect(first).toBeGreaterThanOrEqual(0);
    expect(first).toBeLessThan(3);
  });

  it('pages it when the history leaves less room: every line is read by the fourth call, each page fitting', async () => {
    // The Raft session's own ~6k-token history leaves less than the file's tokens.
    const { file, received } = await readChineseFile();
    expect(hasEveryLine([received[2]?.prompt ?? []], file)).toBe(false);
    expect(
      hasEveryLine(
        received.slice(0, 4).map((call) => call.prompt),
        file,
      ),
    ).toBe(true);
  });
});
