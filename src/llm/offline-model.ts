import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import { CtxloomError } from '../core/index.ts';
import {
  type AnswerLanguage,
  composeOfflineAnswer,
  detectLanguage,
  offlineText,
  type Passage,
  parseQuery,
  splitPassages,
} from './offline-answer.ts';

/** The label every English offline answer starts with, so nobody mistakes it for a real model. */
export const OFFLINE_LABEL = offlineText('en').label;

/** How to switch to a real model; shown in offline answers and the UI. */
export const OFFLINE_HINT =
  'Set CTXLOOM_MODEL to openai:<model>, anthropic:<model> or openai-compatible:<baseURL>#<model> to use a real model.';

const FILE_REQUEST =
  /(?:read|open|show|cat|读取|打开|查看|看一下|看看)\s*(?:the\s+file\s+|file\s+|文件\s*)?[`"'「]?([\w./\-\u4e00-\u9fff]+\.(?:md|json|txt|csv|yaml|yml))/iu;

/** Options of {@link createOfflineModel}. */
export interface OfflineModelOptions {
  /** Pause between streamed text chunks, in milliseconds (0..1000). Default 0: as fast as read. */
  chunkDelayMs?: number;
}

/**
 * The offline model: an AI SDK `LanguageModelV4` that needs no network and no key. It is a
 * labelled feature, not a mock: it quotes the references the user attached, then the
 * passages of the compiled context that best match the question (BM25), each with its
 * source, in the question's language (a Chinese question gets a Chinese answer), streamed a
 * few words at a time. When the user asks for a file ("read guidance.md", "打开
 * milestones.md") and a `read_file` tool is offered, it calls the tool and then shows what
 * came back. It cannot produce structured (JSON) output.
 */
export function createOfflineModel(options: OfflineModelOptions = {}): LanguageModelV4 {
  const delayMs = Math.min(1000, Math.max(0, options.chunkDelayMs ?? 0));
  return {
    specificationVersion: 'v4',
    provider: 'ctxloom',
    modelId: 'offline',
    supportedUrls: {},
    async doGenerate(callOptions) {
      const content = plan(callOptions);
      return { content, finishReason: finish(content), usage: usage(), warnings: [] };
    },
    async doStream(callOptions) {
      const content = plan(callOptions);
      const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }];
      for (const [index, item] of content.entries()) {
        if (item.type === 'text') {
          const id = `text-${index}`;
          parts.push({ type: 'text-start', id });
          for (const delta of chunkText(item.text)) parts.push({ type: 'text-delta', id, delta });
          parts.push({ type: 'text-end', id });
        } else {
          parts.push(item as LanguageModelV4StreamPart);
        }
      }
      parts.push({ type: 'finish', finishReason: finish(content), usage: usage() });
      const signal = callOptions.abortSignal;
      let next = 0;
      const stream = new ReadableStream<LanguageModelV4StreamPart>({
        async pull(controller) {
          if (signal?.aborted === true || next >= parts.length) {
            controller.close();
            return;
          }
          const part = parts[next++] as LanguageModelV4StreamPart;
          if (delayMs > 0 && part.type === 'text-delta')
            await new Promise((done) => setTimeout(done, delayMs));
          controller.enqueue(part);
        },
      });
      return { stream };
    },
  };
}

/**
 * Splits text into deltas of a few words (CJK by word too, via `Intl.Segmenter`), so the
 * answer arrives as a stream of small pieces.
 */
export function chunkText(text: string, wordsPerChunk = 3): string[] {
  const segmenter = new Intl.Segmenter('zh', { granularity: 'word' });
  const chunks: string[] = [];
  let current = '';
  let words = 0;
  for (const { segment, isWordLike } of segmenter.segment(text)) {
    current += segment;
    if (isWordLike === true) words++;
    if (words >= wordsPerChunk || segment.includes('\n')) {
      chunks.push(current);
      current = '';
      words = 0;
    }
  }
  if (current !== '') chunks.push(current);
  return chunks;
}

function plan(options: LanguageModelV4CallOptions): LanguageModelV4Content[] {
  if (options.responseFormat?.type === 'json') {
    throw new CtxloomError({
      code: 'unsupported',
      message: `the offline model does not produce structured output. ${OFFLINE_HINT}`,
    });
  }
  const prompt = options.prompt;
  const query = parseQuery(lastUserText(prompt));
  const language = detectLanguage(query.question === '' ? lastUserText(prompt) : query.question);
  const text = offlineText(language);
  const last = prompt.at(-1);
  if (last?.role === 'tool')
    return [{ type: 'text', text: afterTool(last.content, language, toolPaths(prompt)) }];

  const toolNames = new Set((options.tools ?? []).map((tool) => tool.name));
  const wanted = FILE_REQUEST.exec(query.question)?.[1];
  if (wanted !== undefined && toolNames.has('read_file')) {
    return [
      { type: 'text', text: `**${text.label}** ${text.reading(wanted)}` },
      {
        type: 'tool-call',
        toolCallId: `offline-${hashCode(query.question)}`,
        toolName: 'read_file',
        input: JSON.stringify({ path: wanted }),
      },
    ];
  }
  const { context, messages } = passagesOf(prompt, language);
  return [{ type: 'text', text: composeOfflineAnswer({ query, passages: context, messages, language }) }];
}

const FENCE_LANGUAGES: Record<string, string> = {
  md: 'markdown',
  markdown: 'markdown',
  json: 'json',
  yaml: 'yaml',
  yml: 'yaml',
};

/** The `path` argument of each tool call in the prompt, by call id (to label a result's code fence). */
function toolPaths(prompt: LanguageModelV4Prompt): Map<string, string> {
  const paths = new Map<string, string>();
  for (const message of prompt) {
    if (message.role !== 'assistant') continue;
    for (const part of message.content) {
      if (part.type !== 'tool-call') continue;
      const input = (typeof part.input === 'string' ? safeJson(part.input) : part.input) as
        | { path?: unknown }
        | undefined;
      if (typeof input?.path === 'string') paths.set(part.toolCallId, input.path);
    }
  }
  return paths;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function afterTool(
  content: Extract<LanguageModelV4Prompt[number], { role: 'tool' }>['content'],
  language: AnswerLanguage,
  paths: ReadonlyMap<string, string>,
): string {
  const text = offlineText(language);
  const lines = [`**${text.label}**`];
  for (const part of content) {
    if (part.type !== 'tool-result') continue;
    const output = part.output;
    const value =
      output.type === 'text' || output.type === 'error-text'
        ? output.value
        : output.type === 'json' || output.type === 'error-json'
          ? JSON.stringify(output.value)
          : output.type === 'execution-denied'
            ? text.denied
            : text.otherContent;
    const failed =
      output.type === 'error-text' || output.type === 'error-json' || output.type === 'execution-denied';
    const preview = value.length > 800 ? `${value.slice(0, 799)}…` : value;
    // A fence longer than any backtick run inside, so the file shows verbatim.
    const fence = '`'.repeat(
      Math.max(3, ...Array.from(preview.matchAll(/`+/gu), (run) => run[0].length + 1)),
    );
    lines.push(
      '',
      failed ? text.failed(part.toolName) : text.returned(part.toolName),
      '',
      `${fence}${failed ? 'text' : (FENCE_LANGUAGES[extensionOf(paths.get(part.toolCallId))] ?? 'text')}`,
      preview,
      fence,
    );
  }
  return lines.join('\n');
}

const CONTEXT_ELEMENT = /^<context layer="[^"]*">\n([\s\S]*)\n<\/context>$/u;

/**
 * The passages an answer may quote: the context (every system message but the first, the
 * instructions, and the `<context layer="…">` texts that carry late layers) and, apart, the
 * earlier messages of the conversation.
 */
function passagesOf(
  prompt: LanguageModelV4Prompt,
  language: AnswerLanguage,
): { context: Passage[]; messages: Passage[] } {
  const text = offlineText(language);
  const context: Passage[] = [];
  const messages: Passage[] = [];
  for (const [index, message] of prompt.entries()) {
    if (message.role === 'system' && index > 0) context.push(...splitPassages(text.context, message.content));
    if ((message.role === 'user' || message.role === 'assistant') && index < prompt.length - 1) {
      for (const part of message.content) {
        if (part.type !== 'text') continue;
        const layer = message.role === 'user' ? CONTEXT_ELEMENT.exec(part.text.trim())?.[1] : undefined;
        if (layer !== undefined) context.push(...splitPassages(text.context, layer));
        else messages.push(...splitPassages(text.message(message.role), part.text));
      }
    }
  }
  return { context, messages };
}

function lastUserText(prompt: LanguageModelV4Prompt): string {
  for (let index = prompt.length - 1; index >= 0; index--) {
    const message = prompt[index];
    if (message?.role === 'user')
      return message.content.map((part) => (part.type === 'text' ? part.text : '')).join(' ');
  }
  return '';
}

function finish(content: LanguageModelV4Content[]): LanguageModelV4FinishReason {
  return content.some((item) => item.type === 'tool-call')
    ? { unified: 'tool-calls', raw: 'tool-calls' }
    : { unified: 'stop', raw: 'stop' };
}

/** The offline model has no tokenizer of its own: usage is reported as unknown, not guessed. */
function usage(): LanguageModelV4Usage {
  return {
    inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: undefined, text: undefined, reasoning: undefined },
  };
}

function hashCode(text: string): string {
  let hash = 0;
  for (let index = 0; index < text.length; index++) hash = (Math.imul(hash, 31) + text.charCodeAt(index)) | 0;
  return (hash >>> 0).toString(36);
}

function extensionOf(path: string | undefined): string {
  return /\.(\w+)$/u.exec(path ?? '')?.[1]?.toLowerCase() ?? '';
}
