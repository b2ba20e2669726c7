/**
 * What the recipes of `docs/per-step.md` take from their caller — a provider, tools, messages,
 * a model call — as recording stand-ins: each provider records every call it receives, and
 * every model follows ctxloom's instructions (it reads a file, then calls `open_artifact` as
 * the newest tool result says, then answers). `recipes.test.ts` runs each recipe over them.
 */
import type {
  LanguageModelV4GenerateResult,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider';
import { jsonSchema, simulateReadableStream, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import {
  chineseFile,
  nextArtifactCall,
  toolResultTexts,
} from '../../src/ai-sdk/follow-placeholders.test-support.ts';
import type { CompileReport, Message, ToolCallPart, ToolDefinition } from '../../src/core/index.ts';
import { getTokenCounter } from '../../src/tokenizers/index.ts';

/** Every report a recipe's `onCompile` receives, in order. */
export const reports: CompileReport[] = [];
/** Every provider the recipes built, in order. */
export const providers: MockLanguageModelV4[] = [];
/** What `callModel` received, in order. */
export const modelCalls: {
  messages: Message[];
  tools: readonly ToolDefinition[];
  maxOutputTokens: number;
}[] = [];

/** Starts a recipe afresh. */
export function resetEnvironment(): void {
  reports.length = 0;
  providers.length = 0;
  modelCalls.length = 0;
}

/** The file the models read: ~48k tokens of English, above 40 % of a 128k window's input budget. */
export const LARGE_FILE = Array.from(
  { length: 2400 },
  (_, index) => `Step ${index}: the nightly ETL job loads partition ${index} and checks its row count.`,
).join('\n');
/** The file the core loop reads: 5,500 tokens of Chinese, above 40 % of a 16k window's input budget. */
export const CHINESE_FILE = chineseFile(getTokenCounter('gpt-4o'), 5500);

const USAGE = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

/** Stands for `openai(modelId)`: a recording provider that follows ctxloom's instructions. */
export function openai(_modelId: string): MockLanguageModelV4 {
  const provider = new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => answer(prompt),
    // A streamed call sends the same answer, its text word by word.
    doStream: async ({ prompt }) => {
      const { content, finishReason } = answer(prompt);
      const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }];
      for (const part of content) {
        if (part.type === 'text') {
          parts.push({ type: 'text-start', id: 't' });
          for (const word of part.text.split(/(?<= )/u))
            parts.push({ type: 'text-delta', id: 't', delta: word });
          parts.push({ type: 'text-end', id: 't' });
        } else if (part.type === 'tool-call') parts.push(part);
      }
      parts.push({ type: 'finish', finishReason, usage: USAGE });
      return { stream: simulateReadableStream({ chunks: parts }) };
    },
  });
  providers.push(provider);
  return provider;
}

/** The answer to `prompt`: read the file, then open the artifact as the newest tool result says, then answer. */
function answer(prompt: LanguageModelV4Prompt): LanguageModelV4GenerateResult {
  const hasResult = toolResultTexts(prompt).length > 0;
  const artifact = nextArtifactCall(prompt);
  if (hasResult && artifact === undefined) {
    return {
      content: [{ type: 'text', text: 'The job checks every partition.' }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: USAGE,
      warnings: [],
    };
  }
  return {
    content: [
      {
        type: 'tool-call',
        toolCallId: `call-${prompt.length}`,
        toolName: hasResult ? 'open_artifact' : 'read_file',
        input: JSON.stringify(hasResult ? artifact : { path: 'etl.md' }),
      },
    ],
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage: USAGE,
    warnings: [],
  };
}

/** Your tools: one `read_file` that returns {@link LARGE_FILE}. */
export const tools = {
  read_file: tool({
    description: 'Read a file of the workspace',
    inputSchema: jsonSchema<{ path: string }>({
      type: 'object',
      properties: { path: { type: 'string' } },
      required: ['path'],
    }),
    execute: async () => LARGE_FILE,
  }),
};

/** The conversation so far, as AI SDK messages. */
export const messages = [{ role: 'user' as const, content: 'Read etl.md and review the job.' }];

/** Your tools for a loop of your own: JSON-schema definitions. */
export const definitions: ToolDefinition[] = [
  {
    name: 'read_file',
    description: 'Read a file of the workspace',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
];
export const systemPrompt = 'You review design notes.';
export const history: Message[] = [
  { id: 'h1', role: 'user', content: 'Hello.' },
  { id: 'h2', role: 'assistant', content: 'Hello! Which notes?' },
];
export const query: Message = { id: 'q1', role: 'user', content: '读一下 raft-zh.md 并总结。' };

/** Runs one of your tools (here `read_file`, returning {@link CHINESE_FILE}). */
export async function runTool(_call: ToolCallPart): Promise<string> {
  return CHINESE_FILE;
}

/** Your model call: records what it is sent and follows ctxloom's instructions. */
export async function callModel(input: {
  messages: Message[];
  tools: readonly ToolDefinition[];
  maxOutputTokens: number;
}): Promise<{ message: Message; toolCalls: ToolCallPart[] }> {
  modelCalls.push(input);
  const step = modelCalls.length;
  const turn = input.messages.slice(input.messages.findLastIndex((message) => message.role === 'user') + 1);
  const newest = turn.filter((message) => message.role === 'tool').at(-1);
  const part = Array.isArray(newest?.content) ? newest.content[0] : undefined;
  const output = part?.type === 'tool-result' && part.output.type === 'text' ? part.output.value : undefined;
  const next =
    output === undefined
      ? undefined
      : (/next page: open_artifact (\{[^}]*\})/u.exec(output) ??
        /call open_artifact with (\{[^}]*\})/u.exec(output));
  const toolCalls: ToolCallPart[] =
    output !== undefined && next === null
      ? []
      : [
          {
            type: 'tool-call',
            toolCallId: `c${step}`,
            toolName: output === undefined ? 'read_file' : 'open_artifact',
            input:
              output === undefined
                ? { path: 'raft-zh.md' }
                : JSON.parse((next as RegExpExecArray)[1] as string),
          },
        ];
  return {
    message: { id: `a${step}`, role: 'assistant', content: toolCalls.length === 0 ? 'Read.' : toolCalls },
    toolCalls,
  };
}
