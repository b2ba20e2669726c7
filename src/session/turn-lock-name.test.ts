import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestNotebook } from '../server/test-workspace.test-support.ts';
import { createSessionEngine } from './create-session-engine.ts';
import { createFileSessionStore } from './file-session-store.ts';

const SESSION = 'raft-consensus';
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

/** A provider that writes `path` once, then answers with the tool result it got. */
function writingModel(path: string) {
  return new MockLanguageModelV4({
    doStream: async ({ prompt }) => {
      const result = prompt.at(-1)?.role === 'tool' ? JSON.stringify(prompt.at(-1)?.content) : undefined;
      const chunks: LanguageModelV4StreamPart[] =
        result === undefined
          ? [
              { type: 'stream-start', warnings: [] },
              {
                type: 'tool-call',
                toolCallId: 'call-1',
                toolName: 'write_file',
                input: JSON.stringify({ path, content: 'notes' }),
              },
              { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: USAGE },
            ]
          : [
              { type: 'stream-start', warnings: [] },
              { type: 'text-start', id: 't' },
              { type: 'text-delta', id: 't', delta: result },
              { type: 'text-end', id: 't' },
              { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE },
            ];
      return { stream: simulateReadableStream({ chunks }) };
    },
  });
}

describe('the turn lock', () => {
  it.each(['messages.json.turn', 'Messages.JSON.turn'])(
    'is not a name a tool can write: a write of %s inside a turn is refused, not left waiting for the turn',
    async (path) => {
      const workspace = notebook.workspace;
      let next = 0;
      const engine = createSessionEngine({
        workspace,
        store: createFileSessionStore({ workspace }),
        model: { model: writingModel(path), spec: 'recording', offline: false },
        createId: () => `t-${++next}`,
        now: () => new Date('2026-03-01T10:00:00.000Z'),
        maxSteps: 3,
      });
      const turn = await engine.runTurn({ sessionId: SESSION, text: 'Write the notes.', messageId: 'u-1' });
      for await (const _ of turn.stream);
      const stored = await turn.stored;
      expect(JSON.stringify(stored)).toContain('managed by ctxloom');
      await expect(readFile(join(notebook.root, SESSION, path))).rejects.toThrow(/ENOENT/u);
    },
  );
});
