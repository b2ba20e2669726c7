import type {
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider';
import { generateText, jsonSchema, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4, simulateReadableStream } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { type CompiledContext, withTokenCache } from '../core/index.ts';
import { getTokenCounter } from '../tokenizers/index.ts';
import { countCallTokens } from './count-call-tokens.ts';
import { ctxloomMiddleware } from './ctxloom-middleware.ts';
import { ctxloomPrepareStep, toolDefinitions } from './ctxloom-prepare-step.ts';
import { type AnyModelMessage, fromModelMessages } from './from-model-messages.ts';
import { openArtifactTool } from './open-artifact-tool.ts';

const counter = withTokenCache(getTokenCounter('gpt-4o'));
const WINDOW = 6000;

function fileText(name: string, paragraphs: number): string {
  return Array.from(
    { length: paragraphs },
    (_, index) =>
      `## ${name} part ${index}\nThe ${name} service retries request ${index} twice and logs latency.`,
  ).join('\n\n');
}

const tools = {
  read_file: tool({
    description: 'Read a file of the workspace',
    inputSchema: jsonSchema<{ path: string }>({
      type: 'object',
      properties: { path: { type: 'string' } },
      required: ['path'],
    }),
    execute: async ({ path }: { path: string }) => fileText(path, 70),
  }),
};

/** What the provider received: the tokens of its prompt and tool schemas, counted the one way. */
const sentTokens = (call: LanguageModelV4CallOptions) => countCallTokens(call, counter);

/** A model that calls read_file `calls` times, then answers; it records every call. */
function recordingModel(calls: number) {
  let step = 0;
  const result = (): LanguageModelV4GenerateResult => {
    step++;
    const usage = {
      inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 0, text: 0, reasoning: 0 },
    };
    if (step <= calls) {
      return {
        content: [
          {
            type: 'tool-call',
            toolCallId: `call-${step}`,
            toolName: 'read_file',
            input: JSON.stringify({ path: `f${step}.md` }),
          },
        ],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      } as LanguageModelV4GenerateResult;
    }
    return {
      content: [{ type: 'text', text: 'All files read.' }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage,
      warnings: [],
    } as LanguageModelV4GenerateResult;
  };
  return new MockLanguageModelV4({ doGenerate: async () => result() });
}

describe('ctxloomMiddleware', () => {
  it('compiles every call of generateText under window − reserve, and the report total is what was sent', async () => {
    const compiled: CompiledContext[] = [];
    const middleware = ctxloomMiddleware({
      counter,
      window: WINDOW,
      onCompile: (entry) => void compiled.push(entry),
    });
    const base = recordingModel(4);
    const model = wrapLanguageModel({ model: base, middleware });
    const result = await generateText({
      model,
      instructions: 'You are a careful code reviewer.',
      tools: { ...tools, open_artifact: openArtifactTool(middleware.store) },
      stopWhen: stepCountIs(8),
      prompt: 'Read f1.md to f4.md and review them.',
    });
    expect(result.text).toBe('All files read.');
    expect(base.doGenerateCalls).toHaveLength(5);
    expect(compiled).toHaveLength(5);
    for (const [index, call] of base.doGenerateCalls.entries()) {
      const report = compiled[index]?.report;
      expect(sentTokens(call)).toBe(report?.totalTokens);
      expect(sentTokens(call)).toBeLessThanOrEqual(WINDOW - (report?.outputReserve ?? 0));
      expect(call.maxOutputTokens).toBe(report?.outputReserve);
      expect(report?.tools?.names).toEqual(['read_file', 'open_artifact']);
    }
    // Without the compile the fifth call would carry four ~1.5k-token files.
    const last = compiled.at(-1)?.report;
    expect(
      last?.compaction.some((action) => action.type === 'placeholder' || action.type === 'omitted-notice'),
    ).toBe(true);
  });

  it('compiles every call of streamText too', async () => {
    const compiled: CompiledContext[] = [];
    const middleware = ctxloomMiddleware({
      counter,
      window: WINDOW,
      onCompile: (entry) => void compiled.push(entry),
    });
    let calls = 0;
    const base = new MockLanguageModelV4({
      doStream: async () => {
        calls++;
        const chunks: LanguageModelV4StreamPart[] =
          calls === 1
            ? [
                {
                  type: 'tool-call' as const,
                  toolCallId: 's1',
                  toolName: 'read_file',
                  input: '{"path":"a.md"}',
                },
                {
                  type: 'finish' as const,
                  finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
                  usage: {
                    inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
                    outputTokens: { total: 0, text: 0, reasoning: 0 },
                  },
                },
              ]
            : [
                { type: 'text-start' as const, id: 't' },
                { type: 'text-delta' as const, id: 't', delta: 'Done.' },
                { type: 'text-end' as const, id: 't' },
                {
                  type: 'finish' as const,
                  finishReason: { unified: 'stop' as const, raw: 'stop' },
                  usage: {
                    inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
                    outputTokens: { total: 0, text: 0, reasoning: 0 },
                  },
                },
              ];
        return { stream: simulateReadableStream({ chunks }) };
      },
    });
    const result = streamText({
      model: wrapLanguageModel({ model: base, middleware }),
      tools,
      stopWhen: stepCountIs(4),
      prompt: 'Read a.md',
    });
    expect(await result.text).toBe('Done.');
    expect(base.doStreamCalls).toHaveLength(2);
    for (const [index, call] of base.doStreamCalls.entries()) {
      expect(sentTokens(call)).toBe(compiled[index]?.report.totalTokens);
      expect(call.maxOutputTokens).toBe(compiled[index]?.maxOutputTokens);
    }
  });

  it('gives AI SDK messages stable ids from content and position among repeats', () => {
    const messages: AnyModelMessage[] = [
      { role: 'user', content: 'yes' },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'yes' },
    ];
    const first = fromModelMessages(messages).messages.map((message) => message.id);
    const again = fromModelMessages([...messages, { role: 'assistant', content: 'fine' }]).messages.map(
      (message) => message.id,
    );
    expect(new Set(first).size).toBe(3);
    expect(again.slice(0, 3)).toEqual(first);
    expect(first[2]).toBe(`${first[0]}:2`);
  });
});

describe('ctxloomPrepareStep', () => {
  it('compiles every step of generateText and sends the reserve as maxOutputTokens', async () => {
    const compiled: CompiledContext[] = [];
    const prepareStep = ctxloomPrepareStep({
      counter,
      window: WINDOW,
      tools,
      onCompile: (entry) => void compiled.push(entry),
    });
    const base = recordingModel(3);
    await generateText({
      model: base,
      instructions: 'Review files.',
      tools: prepareStep.tools,
      prepareStep,
      stopWhen: stepCountIs(6),
      messages: [{ role: 'user', content: 'Read three files.' }],
    });
    expect(base.doGenerateCalls).toHaveLength(4);
    expect(await toolDefinitions(tools)).toHaveLength(1);
    expect(Object.keys(prepareStep.tools)).toEqual(['read_file', 'open_artifact']);
    for (const [index, call] of base.doGenerateCalls.entries()) {
      const report = compiled[index]?.report;
      // What the provider received, open_artifact's schema included, is what the report counts.
      expect(call.tools?.map((tool) => tool.name)).toEqual(['read_file', 'open_artifact']);
      expect(report?.tools?.names).toEqual(['read_file', 'open_artifact']);
      expect(sentTokens(call)).toBe(report?.totalTokens);
      expect(sentTokens(call)).toBeLessThanOrEqual(WINDOW - (report?.outputReserve ?? 0));
      expect(call.maxOutputTokens).toBe(report?.outputReserve);
    }
  });
});
