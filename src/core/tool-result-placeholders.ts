import { type ArtifactHandleStore, artifactPlaceholder } from './artifact-handles.ts';
import { historyBlockId } from './history.ts';
import { isErrorResult, type Message, type Part, toolOutputText } from './message.ts';
import type { CompactionAction } from './report.ts';
import type { TokenCounter } from './tokens.ts';

/** How tool outputs are kept out of the prompt as artifacts (see `CompileOptions.toolResults`). */
export interface ToolResultPolicy {
  /** Where replaced outputs are kept; the placeholder names their handle. */
  store: ArtifactHandleStore;
  /** An output above this many tokens is always replaced. Default 40 % of the input budget. */
  maxTokens?: number;
  /**
   * Outputs of earlier turns (before the current query) above this many tokens are replaced,
   * so a finished turn's file reads do not crowd the window. Default 256; `Infinity` keeps them.
   */
  earlierTurnMaxTokens?: number;
  /** Characters of preview in a placeholder. Default 160. */
  previewChars?: number;
}

interface Memo {
  key: string;
  message: Message;
  actions: CompactionAction[];
}

/** Per store, replaced messages by original (and the rule that applied): a recompile reuses them. */
const memos = new WeakMap<ArtifactHandleStore, WeakMap<Message, Memo>>();

/**
 * Replaces, in `messages`, tool outputs that are oversized (> `maxTokens`) or belong to an
 * earlier turn (index < `currentFrom`, > `earlierTurnMaxTokens`) with a placeholder naming
 * an artifact handle; the content goes to the policy's store. Failed results are never
 * replaced (they are short and must stay visible). Deterministic: the same message under
 * the same rule always gives the same placeholder, so a cached prefix stays identical.
 */
export function placeholderToolResults(input: {
  messages: readonly Message[];
  currentFrom: number;
  policy: ToolResultPolicy;
  maxTokens: number;
  counter: TokenCounter;
}): { messages: Message[]; actions: CompactionAction[] } {
  const { policy, counter } = input;
  const earlier = policy.earlierTurnMaxTokens ?? 256;
  const actions: CompactionAction[] = [];
  let memo = memos.get(policy.store);
  if (memo === undefined) {
    memo = new WeakMap();
    memos.set(policy.store, memo);
  }
  const byMessage = memo;
  const messages = input.messages.map((message, index) => {
    if (typeof message.content === 'string' || !message.content.some((part) => part.type === 'tool-result'))
      return message;
    const limit = index < input.currentFrom ? Math.min(earlier, input.maxTokens) : input.maxTokens;
    const key = `${limit}`;
    const known = byMessage.get(message);
    if (known !== undefined && known.key === key) {
      actions.push(...known.actions);
      return known.message;
    }
    const own: CompactionAction[] = [];
    const content = message.content.map((part): Part => {
      if (part.type !== 'tool-result' || isErrorResult(part as Part)) return part;
      const text = toolOutputText(part.output);
      const tokens = counter.countText(text);
      if (tokens <= limit) return part;
      const entry = policy.store.put({
        content: text,
        toolName: part.toolName,
        ...(policy.previewChars === undefined ? {} : { previewChars: policy.previewChars }),
      });
      const value = artifactPlaceholder(entry);
      own.push({
        type: 'placeholder',
        blockId: historyBlockId(message),
        toolName: part.toolName,
        handle: entry.handle,
        fromTokens: tokens,
        toTokens: counter.countText(value),
        reason: tokens > input.maxTokens ? 'oversized' : 'earlier-turn',
      });
      return { ...part, output: { type: 'text', value } };
    });
    const replaced: Message =
      own.length === 0
        ? message
        : { ...message, content, metadata: { ...message.metadata, placeholders: own.length } };
    byMessage.set(message, { key, message: replaced, actions: own });
    actions.push(...own);
    return replaced;
  });
  return { messages, actions };
}
