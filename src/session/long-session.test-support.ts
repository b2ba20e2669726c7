import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { nextArtifactCall } from '../ai-sdk/follow-placeholders.test-support.ts';

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
