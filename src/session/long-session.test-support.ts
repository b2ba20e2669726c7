import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { expect } from 'vitest';
import { nextArtifactCall } from '../ai-sdk/follow-placeholders.test-support.ts';
import type { createTestNotebook } from '../server/test-workspace.test-support.ts';
import { createSessionEngine } from './create-session-engine.ts';
import { createFileSessionStore } from './file-session-store.ts';

/** What the scripted models report as usage. */
export const USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** Words the long-session tests' turns are about. */
export const TOPICS = [
  'lighthouse',
  'violin',
  'glacier',
  'marathon',
  'orchid',
  'telescope',
  'pottery',
  'sailboat',
];

/** A model's answer that calls one tool. */
export function toolCall(toolCallId: string, toolName: string, input: unknown) {
  return {
    stream: simulateReadableStream({
      chunks: [
        { type: 'stream-start', warnings: [] },
        { type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) },
        { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: USAGE },
      ] satisfies LanguageModelV4StreamPart[],
    }),
  };
}

/**
 * A model that answers every call with a scripted text, or a `search_history` call when asked,
 * and reads any tool output kept as an artifact by pages.
 */
export function scriptedModel(answers: () => string, search?: { query: string }) {
  let searched = false;
  let opened = 0;
  return new MockLanguageModelV4({
    doStream: async (options) => {
      const prompt = JSON.stringify(options.prompt);
      // It reads an output kept as an artifact, page by page, as the placeholder says.
      const follow = nextArtifactCall(options.prompt);
      if (follow !== undefined) return toolCall(`o${++opened}`, 'open_artifact', follow);
      if (search !== undefined && !searched && prompt.includes('look it up')) {
        searched = true;
        return toolCall('c1', 'search_history', search);
      }
      return textAnswer(answers());
    },
  });
}

/** A model's answer that is one text. */
export function textAnswer(text: string) {
  return {
    stream: simulateReadableStream({
      chunks: [
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: text },
        { type: 'text-end', id: 't' },
        { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE },
      ] satisfies LanguageModelV4StreamPart[],
    }),
  };
}

/** Sets a session's window in its manifest (`budget.window`). */
export async function setSessionWindow(root: string, session: string, window: number): Promise<void> {
  const path = join(root, session, 'context-config.json');
  const config = JSON.parse(await readFile(path, 'utf8'));
  config.budget.window = window;
  await writeFile(path, `${JSON.stringify(config, null, 2)}\n`);
}

type TestNotebook = Awaited<ReturnType<typeof createTestNotebook>>;

/** Creates session `id` through the notebook's API, with a `window`-token budget. */
export async function createWindowedSession(
  notebook: TestNotebook,
  id: string,
  window: number,
): Promise<void> {
  const created = await notebook.app.request('/api/sessions', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ concept: id, id }),
  });
  expect(created.status).toBe(201);
  await setSessionWindow(notebook.root, id, window);
}

/**
 * A session engine over the notebook's file store that sends every call to `model`, with a
 * clock that moves a minute a call and ids in order (`id-000001`, …).
 */
export function recordingEngine(notebook: TestNotebook, model: MockLanguageModelV4, maxSteps: number) {
  let next = 0;
  let minute = 0;
  return createSessionEngine({
    workspace: notebook.workspace,
    store: createFileSessionStore({ workspace: notebook.workspace }),
    model: { model, spec: 'recording', offline: true },
    now: () => new Date(Date.parse('2026-01-01T00:00:00Z') + ++minute * 60_000),
    createId: () => `id-${(++next).toString(36).padStart(6, '0')}`,
    maxSteps,
  });
}
