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
import { type Passage, rankPassages, splitPassages } from './offline-answer.ts';

/** The label every offline answer starts with, so nobody mistakes it for a real model. */
export const OFFLINE_LABEL = '[offline model — no LLM configured]';

/** How to switch to a real model; shown in offline answers and the UI. */
export const OFFLINE_HINT =
  'Set CTXLOOM_MODEL to openai:<model>, anthropic:<model> or openai-compatible:<baseURL>#<model> to use a real model.';

const FILE_REQUEST =
  /(?:read|open|show|cat|读取|打开|查看|看一下|看看)\s*(?:the\s+file\s+|file\s+|文件\s*)?[`"'「]?([\w./\-\u4e00-\u9fff]+\.(?:md|json|txt|csv|yaml|yml))/iu;

/**
 * The offline model: an AI SDK `LanguageModelV4` that needs no network and no key. It is a
 * labelled feature, not a mock: it answers from the compiled context — the passages most
 * relevant to the question, quoted with their layer — and when the user asks for a file
 * ("read guidance.md", "打开 milestones.md") and a `read_file` tool is offered, it calls the
 * tool and then reports what came back. It cannot produce structured (JSON) output.
 */
export function createOfflineModel(): LanguageModelV4 {
  return {
    specificationVersion: 'v4',
    provider: 'ctxloom',
    modelId: 'offline',
    supportedUrls: {},
    async doGenerate(options) {
      const content = plan(options);
      return { content, finishReason: finish(content), usage: usage(), warnings: [] };
    },
    async doStream(options) {
      const content = plan(options);
      const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }];
      for (const [index, item] of content.entries()) {
        if (item.type === 'text') {
          const id = `text-${index}`;
          parts.push({ type: 'text-start', id });
          for (const chunk of item.text.match(/\S+\s*|\s+/gu) ?? [])
            parts.push({ type: 'text-delta', id, delta: chunk });
          parts.push({ type: 'text-end', id });
        } else {
          parts.push(item as LanguageModelV4StreamPart);
        }
      }
      parts.push({ type: 'finish', finishReason: finish(content), usage: usage() });
      const stream = new ReadableStream<LanguageModelV4StreamPart>({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      });
      return { stream };
    },
  };
}

function plan(options: LanguageModelV4CallOptions): LanguageModelV4Content[] {
  if (options.responseFormat?.type === 'json') {
    throw new CtxloomError({
      code: 'unsupported',
      message: `the offline model does not produce structured output. ${OFFLINE_HINT}`,
    });
  }
  const prompt = options.prompt;
  const last = prompt.at(-1);
  if (last?.role === 'tool') return [{ type: 'text', text: afterTool(last.content) }];

  const question = lastUserText(prompt);
  const toolNames = new Set((options.tools ?? []).map((tool) => tool.name));
  const wanted = FILE_REQUEST.exec(question)?.[1];
  if (wanted !== undefined && toolNames.has('read_file')) {
    return [
      { type: 'text', text: `${OFFLINE_LABEL} Reading ${wanted}.` },
      {
        type: 'tool-call',
        toolCallId: `offline-${hashCode(question)}`,
        toolName: 'read_file',
        input: JSON.stringify({ path: wanted }),
      },
    ];
  }
  return [{ type: 'text', text: answer(question, passagesOf(prompt)) }];
}

function answer(question: string, passages: Passage[]): string {
  const best = rankPassages(question, passages, 3);
  const lines = [OFFLINE_LABEL, OFFLINE_HINT, ''];
  if (best.length === 0) {
    lines.push('Nothing in the compiled context matches this question.');
  } else {
    lines.push('The most relevant passages in the compiled context:');
    for (const passage of best) {
      const text = passage.text.length > 600 ? `${passage.text.slice(0, 599)}…` : passage.text;
      lines.push('', `> ${text.replace(/\n/gu, '\n> ')}`, `— ${passage.label}`);
    }
  }
  return lines.join('\n');
}

function afterTool(content: Extract<LanguageModelV4Prompt[number], { role: 'tool' }>['content']): string {
  const lines = [OFFLINE_LABEL];
  for (const part of content) {
    if (part.type !== 'tool-result') continue;
    const output = part.output;
    const text =
      output.type === 'text' || output.type === 'error-text'
        ? output.value
        : output.type === 'json' || output.type === 'error-json'
          ? JSON.stringify(output.value)
          : output.type === 'execution-denied'
            ? 'execution denied'
            : '[content]';
    const failed =
      output.type === 'error-text' || output.type === 'error-json' || output.type === 'execution-denied';
    const preview = text.length > 800 ? `${text.slice(0, 799)}…` : text;
    lines.push(failed ? `${part.toolName} failed: ${preview}` : `${part.toolName} returned:\n\n${preview}`);
  }
  return lines.join('\n');
}

function passagesOf(prompt: LanguageModelV4Prompt): Passage[] {
  const passages: Passage[] = [];
  for (const [index, message] of prompt.entries()) {
    if (message.role === 'system')
      passages.push(...splitPassages(index === 0 ? 'system prompt' : 'context', message.content));
    if (message.role === 'user' && index < prompt.length - 1) {
      for (const part of message.content)
        if (part.type === 'text') passages.push(...splitPassages('earlier message', part.text));
    }
  }
  return passages;
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
