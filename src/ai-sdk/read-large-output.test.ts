import type { LanguageModelV4CallOptions, LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { parsePage } from '../core/artifact-pages.ts';
import { type CompiledContext, withTokenCache } from '../core/index.ts';
import { getTokenCounter } from '../tokenizers/index.ts';
import { countCallTokens } from './count-call-tokens.ts';
import { ctxloomMiddleware } from './ctxloom-middleware.ts';
import {
  chineseFile,
  hasEveryLine,
  nextArtifactCall,
  toolResultTexts,
} from './follow-placeholders.test-support.ts';
import { openArtifactTool } from './open-artifact-tool.ts';

const counter = withTokenCache(getTokenCounter('gpt-4o'));
const USAGE = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

/** A model that reads one file, then calls `open_artifact` as the newest tool result says. */
function followingModel() {
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }): Promise<LanguageModelV4GenerateResult> => {
      const hasResult = toolResultTexts(prompt).length > 0;
      const artifact = nextArtifactCall(prompt);
      if (!hasResult || artifact !== undefined) {
        return {
          content: [
            {
              type: 'tool-call',
              toolCallId: `call-${prompt.length}`,
              toolName: hasResult ? 'open_artifact' : 'read_file',
              input: JSON.stringify(hasResult ? artifact : { path: 'raft.md' }),
            },
          ],
          finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
          usage: USAGE,
          warnings: [],
        };
      }
      return {
        content: [{ type: 'text', text: 'Read.' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: USAGE,
        warnings: [],
      };
    },
  });
}

/**
 * A `generateText` run through `ctxloomMiddleware` in which a model that follows placeholders
 * reads `file` with `read_file` and then by `open_artifact` pages: the calls the model received
 * and each call's compile, in order.
 */
async function readThroughMiddleware(input: {
  file: string;
  window: number;
  instructions: string;
  steps: number;
}): Promise<{ calls: LanguageModelV4CallOptions[]; compiled: CompiledContext[] }> {
  const compiled: CompiledContext[] = [];
  const middleware = ctxloomMiddleware({
    counter,
    window: input.window,
    onCompile: (entry) => void compiled.push(entry),
  });
  const base = followingModel();
  await generateText({
    model: wrapLanguageModel({ model: base, middleware }),
    instructions: input.instructions,
    tools: {
      read_file: tool({
        description: 'Read a file',
        inputSchema: jsonSchema<{ path: string }>({
          type: 'object',
          properties: { path: { type: 'string' } },
          required: ['path'],
        }),
        execute: async () => input.file,
      }),
      open_artifact: openArtifactTool(middleware.store),
    },
    stopWhen: stepCountIs(input.steps),
    prompt: 'Read raft.md and summarise it.',
  });
  return { calls: base.doGenerateCalls as LanguageModelV4CallOptions[], compiled };
}

describe('a large tool output through ctxloomMiddleware', () => {
  it('puts a 5,500-token Chinese file in the model input within 3 calls, with a 16k window', async () => {
    const file = chineseFile(counter, 5500);
    const { calls, compiled } = await readThroughMiddleware({
      file,
      window: 16_000,
      instructions: 'You review design notes.',
      steps: 8,
    });
    // The file is larger than 40 % of the input budget: the read becomes a placeholder first.
    expect(JSON.stringify(calls[1]?.prompt)).toContain('call open_artifact with');
    const first = calls.findIndex((call) => hasEveryLine([call.prompt], file));
    expect(first).toBeGreaterThanOrEqual(0);
    expect(first).toBeLessThan(3);
    // Never a placeholder of a page: no handle but the file's is ever named.
    const handles = new Set(JSON.stringify(calls.map((call) => call.prompt)).match(/art_[0-9a-f]+/gu));
    expect(handles.size).toBe(1);
    for (const [index, call] of calls.entries()) {
      const report = compiled[index]?.report;
      expect(countCallTokens(call, counter)).toBe(report?.totalTokens);
      expect(report?.totalTokens).toBeLessThanOrEqual(report?.inputBudget ?? 0);
    }
  });
});

describe('a tool output the history has no room for, through ctxloomMiddleware (decision 070)', () => {
  it('is kept as an artifact and read page by page in a small window, never dropped', async () => {
    // Under 40 % of the input budget, but more than the long instructions leave the history.
    const file = chineseFile(counter, 500);
    const instructions = Array.from(
      { length: 60 },
      (_, index) => `Rule ${index}: cite the section you used and keep the answer short.`,
    ).join('\n');
    const { calls, compiled } = await readThroughMiddleware({ file, window: 2000, instructions, steps: 40 });
    expect(counter.countText(file)).toBeLessThan(0.4 * (compiled[0]?.report.inputBudget ?? 0));
    expect(compiled[1]?.report.compaction).toContainEqual(
      expect.objectContaining({ type: 'placeholder', toolName: 'read_file', reason: 'no-room' }),
    );
    // Every character of the file reached the model, page by page, and the model stopped reading.
    const read = new Array<string>(file.length).fill('');
    for (const call of calls) {
      for (const text of toolResultTexts(call.prompt)) {
        const page = parsePage(text);
        for (let at = 0; page !== undefined && at < page.text.length; at++)
          read[page.offset + at] = page.text[at] as string;
      }
    }
    expect(read.join('')).toBe(file);
    expect(nextArtifactCall(calls.at(-1)?.prompt ?? [])).toBeUndefined();
    for (const [index, call] of calls.entries()) {
      const report = compiled[index]?.report;
      expect(countCallTokens(call, counter)).toBe(report?.totalTokens);
      expect(report?.totalTokens).toBeLessThanOrEqual(report?.inputBudget ?? 0);
      // No page carries only the few characters a cut line leaves (every other page did).
      const newest = parsePage(toolResultTexts(call.prompt).at(-1) ?? '');
      if (newest !== undefined && newest.end < file.length) expect(newest.text.length).toBeGreaterThan(20);
    }
  });
});
