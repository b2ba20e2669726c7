import type { LanguageModelV4CallOptions, LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import {
  generateText,
  jsonSchema,
  type LanguageModelMiddleware,
  type ModelMessage,
  stepCountIs,
  tool,
  wrapLanguageModel,
} from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { type CompiledContext, type Message, withTokenCache } from '../core/index.ts';
import { getTokenCounter } from '../tokenizers/index.ts';
import type { CtxloomHookOptions } from './compile-model-call.ts';
import { createConversationCuts } from './conversation-cuts.ts';
import { countCallTokens } from './count-call-tokens.ts';
import { ctxloomMiddleware } from './ctxloom-middleware.ts';
import { type AnyModelMessage, fromModelMessages } from './from-model-messages.ts';
import { openArtifactTool } from './open-artifact-tool.ts';

const counter = withTokenCache(getTokenCounter('gpt-4o'));
const WINDOW = 8000;
const TURNS = 64;
/** Tool reads per turn: 0, 1, 2, 1, … (tool-heavy, like the `steps` bench). */
const readsOf = (turn: number) => [0, 1, 2, 1][turn % 4] as number;

function fileText(name: string): string {
  const size = 40 + ((name.length * 7) % 50);
  return Array.from(
    { length: size },
    (_, index) => `## ${name} part ${index}\nThe ${name} service retries request ${index} and logs latency.`,
  ).join('\n\n');
}

interface Call {
  turn: number;
  /** Position in the whole conversation of the first history message sent (the query's when none). */
  firstKept: number;
  sentTokens: number;
  reportTokens: number;
}

/** Runs a tool-heavy session through the middleware and a recording provider. */
async function runSession(options: Partial<CtxloomHookOptions> = {}): Promise<Call[]> {
  const calls: Call[] = [];
  let turn = 0;
  let reads = 0;
  let raw: Message[] = [];
  let compiled: CompiledContext | undefined;
  const usage = {
    inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 0, text: 0, reasoning: 0 },
  };
  const provider = new MockLanguageModelV4({
    doGenerate: async (params: LanguageModelV4CallOptions) => {
      const sent = compiled as CompiledContext;
      const first = sent.history[0]?.id ?? sent.query?.id;
      calls.push({
        turn,
        firstKept: raw.findIndex((message) => message.id === first),
        sentTokens: countCallTokens(params, counter),
        reportTokens: sent.report.totalTokens,
      });
      if (reads < readsOf(turn)) {
        reads++;
        return {
          content: [
            {
              type: 'tool-call',
              toolCallId: `t${turn}-${reads}`,
              toolName: 'read_file',
              input: JSON.stringify({ path: `src/module-${turn}-${reads}.ts` }),
            },
          ],
          finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
          usage,
          warnings: [],
        } as LanguageModelV4GenerateResult;
      }
      return {
        content: [
          { type: 'text', text: `Turn ${turn}: the retries look fine; latency is logged per request.` },
        ],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage,
        warnings: [],
      } as LanguageModelV4GenerateResult;
    },
  });
  const middleware = ctxloomMiddleware({
    counter,
    window: WINDOW,
    ...options,
    onCompile: (entry) => {
      compiled = entry;
    },
  });
  const recordRaw: LanguageModelMiddleware = {
    specificationVersion: 'v4',
    transformParams: async ({ params }) => {
      raw = fromModelMessages(params.prompt as unknown as AnyModelMessage[]).messages;
      return params;
    },
  };
  const model = wrapLanguageModel({ model: provider, middleware: [recordRaw, middleware] });
  const tools = {
    read_file: tool({
      description: 'Read a file of the workspace',
      inputSchema: jsonSchema<{ path: string }>({
        type: 'object',
        properties: { path: { type: 'string' } },
        required: ['path'],
      }),
      execute: async ({ path }: { path: string }) => fileText(path),
    }),
    open_artifact: openArtifactTool(middleware.store),
  };
  const messages: ModelMessage[] = [];
  for (turn = 0; turn < TURNS; turn++) {
    reads = 0;
    messages.push({ role: 'user', content: `Turn ${turn}: please check the retry logic of module ${turn}.` });
    const result = await generateText({
      model,
      instructions: 'You review code and remember the conversation.',
      tools,
      stopWhen: stepCountIs(6),
      messages,
    });
    messages.push(...result.responseMessages);
  }
  return calls;
}

describe('ctxloomMiddleware › stored history cut', () => {
  it('never moves the first kept history message back across 60+ turns with tool steps, and the report is what was sent', async () => {
    const calls = await runSession();
    expect(calls.length).toBeGreaterThan(TURNS + 60);
    let moves = 0;
    for (const [index, call] of calls.entries()) {
      expect(call.firstKept).toBeGreaterThanOrEqual(0);
      expect(call.sentTokens).toBe(call.reportTokens);
      expect(call.sentTokens).toBeLessThanOrEqual(WINDOW - Math.floor(WINDOW * 0.25));
      const previous = calls[index - 1];
      if (previous === undefined) continue;
      expect(call.firstKept).toBeGreaterThanOrEqual(previous.firstKept);
      if (call.firstKept > previous.firstKept) moves++;
    }
    // The history outgrew the window many times: the cut moved, each time with headroom.
    expect(calls.at(-1)?.firstKept).toBeGreaterThan(100);
    expect(moves).toBeGreaterThan(3);
    expect(moves).toBeLessThan(calls.length / 4);
  });
});

describe('createConversationCuts', () => {
  const message = (id: string, role: Message['role'] = 'user'): Message => ({ id, role, content: id });

  it('keeps one store per conversation, known by its system messages and first message', () => {
    const cuts = createConversationCuts();
    const store = cuts.forMessages([message('s', 'system'), message('u1')]);
    store.set('a3');
    expect(cuts.forMessages([message('s', 'system'), message('u1'), message('a1', 'assistant')]).get()).toBe(
      'a3',
    );
    expect(cuts.forMessages([message('s', 'system'), message('u2')]).get()).toBeUndefined();
    expect(cuts.forMessages([message('t', 'system'), message('u1')]).get()).toBeUndefined();
  });

  it('forgets the least recently used conversation beyond maxConversations', () => {
    const cuts = createConversationCuts({ maxConversations: 2 });
    cuts.forMessages([message('u1')]).set('x');
    cuts.forMessages([message('u2')]).set('y');
    cuts.forMessages([message('u1')]);
    cuts.forMessages([message('u3')]);
    expect(cuts.size).toBe(2);
    expect(cuts.forMessages([message('u1')]).get()).toBe('x');
    expect(cuts.forMessages([message('u2')]).get()).toBeUndefined();
  });
});
