import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LanguageModelV4CallOptions, LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { generateText, jsonSchema, type ModelMessage, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import type { AnyModelMessage } from '../../src/ai-sdk/index.ts';
import { ctxloomMiddleware, fromModelMessages, openArtifactTool } from '../../src/ai-sdk/index.ts';
import { hashText } from '../../src/core/fingerprint.ts';
import {
  type CompiledContext,
  countToolDefinitions,
  type TokenCounter,
  type ToolDefinition,
} from '../../src/core/index.ts';
import { loadCmrcParagraphs, loadLocomoTurns } from '../lib/data.ts';
import type { CallBlock, RecordedCall } from './cache-share.ts';

const repository = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The commit whose files `read_file` returns: pinned, so the session (and its cache share)
 * stays the same while the sources change — splitting one core file would otherwise change
 * which files are 2k–6k tokens, and with them every number of this suite.
 */
export const FILES_COMMIT = '41c651dbb41cdc1a0b824d1a2d43f18811f9b29b';
const FOLDERS = ['docs', 'src/core', 'src/retrieval', 'src/compression'];

/** Real files of this repository at {@link FILES_COMMIT} (docs and core sources) of 2k–6k tokens: what `read_file` returns. */
export function loadFiles(counter: TokenCounter): { path: string; text: string; tokens: number }[] {
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', repository, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const files: { path: string; text: string; tokens: number }[] = [];
  // Folder by folder, each sorted by name (the order the suite always used).
  const listed = FOLDERS.flatMap((folder) =>
    git('ls-tree', '--name-only', FILES_COMMIT, `${folder}/`)
      .split('\n')
      .filter((path) => path.length > 0)
      .sort(),
  );
  for (const path of listed) {
    const name = path.slice(path.lastIndexOf('/') + 1);
    if (!/\.(md|ts)$/u.test(name) || name.endsWith('.test.ts')) continue;
    const text = git('show', `${FILES_COMMIT}:${path}`);
    const tokens = counter.countText(text);
    if (tokens >= 2000 && tokens <= 6000) files.push({ path, text, tokens });
  }
  return files;
}

/**
 * Chinese files of 2–4.5k tokens for `read_file`: CMRC 2018 paragraphs (Chinese Wikipedia)
 * joined in order, article by article, each file titled and named `zh/cmrc-<n>.md`.
 */
export function loadChineseFiles(
  counter: TokenCounter,
  count = 14,
): { path: string; text: string; tokens: number }[] {
  const files: { path: string; text: string; tokens: number }[] = [];
  let lines: string[] = [];
  let tokens = 0;
  for (const paragraph of loadCmrcParagraphs()) {
    if (files.length >= count) break;
    const line = `## ${paragraph.title}\n\n${paragraph.context}`;
    const size = counter.countText(`${line}\n\n`);
    if (tokens + size > 4500) {
      if (tokens >= 2000) {
        const text = lines.join('\n\n');
        files.push({ path: `zh/cmrc-${files.length + 1}.md`, text, tokens: counter.countText(text) });
      }
      lines = [];
      tokens = 0;
      if (size > 4500) continue;
    }
    lines.push(line);
    tokens += size;
  }
  return files;
}

/** 50 user turns and scripted replies from the first LoCoMo conversation (speaker A asks, B answers). */
export function loadTurns(count = 50): { user: string; reply: string }[] {
  const all = loadLocomoTurns();
  const turns = count <= 100 ? all.filter((turn) => turn.sampleId === all[0]?.sampleId) : all;
  const first = turns[0]?.speaker;
  const out: { user: string; reply: string }[] = [];
  for (let index = 0; index + 1 < turns.length && out.length < count; index++) {
    const turn = turns[index];
    const next = turns[index + 1];
    if (turn !== undefined && turn.speaker === first && next !== undefined && next.speaker !== first) {
      out.push({ user: `${turn.speaker}: ${turn.text}`, reply: `${next.speaker}: ${next.text}` });
      index++;
    }
  }
  return out;
}

/**
 * `count` user turns and scripted replies, conversation after conversation of LoCoMo (in each,
 * its first speaker asks and the other answers): enough for sessions of 300 turns and more.
 */
export function loadLongTurns(count: number): { user: string; reply: string }[] {
  const all = loadLocomoTurns();
  const out: { user: string; reply: string }[] = [];
  const firstOf = new Map<string, string>();
  for (const turn of all) if (!firstOf.has(turn.sampleId)) firstOf.set(turn.sampleId, turn.speaker);
  for (let index = 0; index + 1 < all.length && out.length < count; index++) {
    const turn = all[index];
    const next = all[index + 1];
    if (turn === undefined || next === undefined || next.sampleId !== turn.sampleId) continue;
    const first = firstOf.get(turn.sampleId);
    if (turn.speaker === first && next.speaker !== first) {
      out.push({ user: `${turn.speaker}: ${turn.text}`, reply: `${next.speaker}: ${next.text}` });
      index++;
    }
  }
  return out;
}

/** Reads per turn: a fixed pattern (0, 1, 2, 1 …) so every run sends the same calls. */
export function readsOf(turn: number): number {
  return [0, 1, 2, 1][turn % 4] as number;
}

/** What one recorded call carried: raw (before ctxloom) and sent prompts, tools, and its compile. */
export interface CallRecord {
  turn: number;
  raw: RecordedCall;
  rawTokens: number;
  sent: RecordedCall;
  sentTokens: number;
  compiled: CompiledContext | undefined;
}

/** A provider call as the cache model sees it, and its input tokens. */
export function toRecorded(
  params: LanguageModelV4CallOptions,
  counter: TokenCounter,
): { call: RecordedCall; tokens: number } {
  const definitions: ToolDefinition[] = (params.tools ?? []).flatMap((entry) =>
    entry.type === 'function'
      ? [
          {
            name: entry.name,
            ...(entry.description === undefined ? {} : { description: entry.description }),
            inputSchema: entry.inputSchema,
          },
        ]
      : [],
  );
  const toolTokens = countToolDefinitions(definitions, counter);
  const { messages } = fromModelMessages(params.prompt as unknown as AnyModelMessage[]);
  const blocks: CallBlock[] = params.prompt.map((message, index) => {
    const { providerOptions: options, ...rest } = message as {
      providerOptions?: { anthropic?: { cacheControl?: unknown } };
    };
    return {
      hash: hashText(JSON.stringify(rest)),
      tokens: counter.countMessages([messages[index] as never]) - counter.overhead.perRequest,
      breakpoint: options?.anthropic?.cacheControl !== undefined,
      system: message.role === 'system',
    };
  });
  const tokens = counter.countMessages(messages) + toolTokens;
  return { call: { toolTokens, toolHash: hashText(JSON.stringify(definitions)), blocks }, tokens };
}

/**
 * Runs the 50-turn tool-using session through `generateText` with the ctxloom middleware
 * and a recording provider (a `MockLanguageModelV4` that reads files on a fixed script and
 * answers with the LoCoMo reply). Records, per model call, the prompt before ctxloom (what
 * the SDK alone would send) and after it, and the call's compile.
 */
export async function runToolSession(input: {
  counter: TokenCounter;
  window: number;
  historyChunkRatio?: number;
  /** `false`: decision 021's chunked cut per call instead of the stored cut (the default). */
  historyCut?: false;
  turns: { user: string; reply: string }[];
  files: { path: string; text: string }[];
  /** Reads per turn; default {@link readsOf}. */
  reads?: (turn: number) => number;
}): Promise<CallRecord[]> {
  const reads = input.reads ?? readsOf;
  const { counter } = input;
  const records: CallRecord[] = [];
  let turn = 0;
  let readsDone = 0;
  let fileCursor = 0;
  let pendingRaw: { call: RecordedCall; tokens: number } | undefined;
  let pendingCompile: CompiledContext | undefined;
  const usage = {
    inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 0, text: 0, reasoning: 0 },
  };
  const provider = new MockLanguageModelV4({
    doGenerate: async (params) => {
      const sent = toRecorded(params, counter);
      records.push({
        turn,
        raw: pendingRaw?.call ?? sent.call,
        rawTokens: pendingRaw?.tokens ?? sent.tokens,
        sent: sent.call,
        sentTokens: sent.tokens,
        compiled: pendingCompile,
      });
      if (readsDone < reads(turn)) {
        readsDone++;
        const file = input.files[fileCursor++ % input.files.length];
        return {
          content: [
            {
              type: 'tool-call',
              toolCallId: `t${turn}-${readsDone}`,
              toolName: 'read_file',
              input: JSON.stringify({ path: file?.path }),
            },
          ],
          finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
          usage,
          warnings: [],
        } as LanguageModelV4GenerateResult;
      }
      return {
        content: [{ type: 'text', text: input.turns[turn]?.reply ?? 'ok' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage,
        warnings: [],
      } as LanguageModelV4GenerateResult;
    },
  });
  const middleware = ctxloomMiddleware({
    counter,
    window: input.window,
    ...(input.historyChunkRatio === undefined ? {} : { historyChunkRatio: input.historyChunkRatio }),
    ...(input.historyCut === undefined ? {} : { historyCut: input.historyCut }),
    onCompile: (compiled) => {
      pendingCompile = compiled;
    },
  });
  // A first middleware sees the prompt the SDK built, before ctxloom compiles it.
  const model = wrapLanguageModel({
    model: provider,
    // Applied in order: the recorder sees the SDK's prompt before ctxloom compiles it.
    middleware: [
      {
        specificationVersion: 'v4',
        transformParams: async ({ params }) => {
          pendingRaw = toRecorded(params, counter);
          return params;
        },
      },
      middleware,
    ],
  });
  const byPath = new Map(input.files.map((file) => [file.path, file.text]));
  const tools = {
    read_file: tool({
      description: 'Read a file of the workspace by its path',
      inputSchema: jsonSchema<{ path: string }>({
        type: 'object',
        properties: { path: { type: 'string', description: 'Path relative to the workspace root' } },
        required: ['path'],
      }),
      execute: async ({ path }: { path: string }) => byPath.get(path) ?? 'not found',
    }),
    open_artifact: openArtifactTool(middleware.store),
  };
  const messages: ModelMessage[] = [];
  for (turn = 0; turn < input.turns.length; turn++) {
    readsDone = 0;
    messages.push({ role: 'user', content: input.turns[turn]?.user ?? '' });
    const result = await generateText({
      model,
      instructions: 'You are a friendly assistant who remembers the conversation and reads files when asked.',
      tools,
      stopWhen: stepCountIs(6),
      messages,
    });
    messages.push(...result.responseMessages);
  }
  return records;
}
