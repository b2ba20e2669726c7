import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import type { TokenCounter } from '../core/index.ts';

const SENTENCES = [
  '领导者把日志条目复制到所有跟随者，并在多数派确认后提交。',
  '每个任期最多只有一个领导者，任期号单调递增。',
  '跟随者在选举超时后转为候选人并发起投票请求。',
  '快照用于压缩日志，避免重放全部历史。',
  '成员变更采用联合共识，保证任意时刻不会出现两个多数派。',
];

/** A Chinese text of at least `tokens` tokens (numbered lines of real sentences). */
export function chineseFile(counter: TokenCounter, tokens: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let index = 0; size < tokens; index++) {
    const line = `第${index + 1}节：${SENTENCES[index % 5]}${SENTENCES[(index * 3 + 1) % 5]}`;
    lines.push(line);
    size += counter.countText(`${line}\n`);
  }
  return lines.join('\n');
}

/** The text of every tool result of the current turn (after the last user message), in order. */
export function toolResultTexts(prompt: LanguageModelV4Prompt): string[] {
  const texts: string[] = [];
  const turnFrom = prompt.findLastIndex((message) => message.role === 'user');
  for (const message of prompt.slice(turnFrom + 1)) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type !== 'tool-result') continue;
      const output = part.output;
      texts.push(output.type === 'text' ? output.value : JSON.stringify(output));
    }
  }
  return texts;
}

/**
 * What a model that follows ctxloom's instructions calls next, given the prompt it received:
 * the `open_artifact` call the newest tool result names (a placeholder's handle, or a page's
 * next page), or undefined when the newest result asks for nothing (the output is read).
 */
export function nextArtifactCall(prompt: LanguageModelV4Prompt): Record<string, unknown> | undefined {
  const last = toolResultTexts(prompt).at(-1);
  if (last === undefined) return undefined;
  // A JSON result (a `search_history` hit's `more`) carries the arguments escaped.
  const newest = last.replaceAll('\\"', '"');
  const next = /next page: open_artifact (\{[^}]*\})/u.exec(newest);
  if (next !== null) return JSON.parse(next[1] as string);
  const placeholder = /call open_artifact with (\{[^}]*\})/u.exec(newest);
  if (placeholder !== null) return JSON.parse(placeholder[1] as string);
  return undefined;
}

/** True when every line of `text` appears in the current turn's tool results of `prompts`, taken together. */
export function hasEveryLine(prompts: readonly LanguageModelV4Prompt[], text: string): boolean {
  const sent = prompts.flatMap((prompt) => toolResultTexts(prompt)).join('\n');
  return text.split('\n').every((line) => sent.includes(line));
}
