import { type ArtifactHandleStore, artifactPlaceholder, OPEN_ARTIFACT_TOOL } from './artifact-handles.ts';
import { type ParsedPage, pageStub, parsePage, shrinkPage } from './artifact-pages.ts';
import { historyBlockId } from './measure-messages.ts';
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
  /**
   * How else the model can read part of an output, added to its placeholder after the
   * `open_artifact` pages, e.g. `call read_file with {"path":"a.md","startLine":1,"endLine":40}`
   * (the workspace's `describeReadFileParts`). Return undefined for outputs it does not know.
   */
  describeParts?: (output: { toolName: string; content: string; tokens: number }) => string | undefined;
}

interface Memo {
  key: string;
  message: Message;
  actions: CompactionAction[];
}

/** Per store, replaced messages by original (and the rule that applied): a recompile reuses them. */
const memos = new WeakMap<ArtifactHandleStore, WeakMap<Message, Memo>>();

/** A page of `open_artifact` in a message: where it is, what it holds and its tokens. */
interface FoundPage {
  index: number;
  part: number;
  page: ParsedPage;
  tokens: number;
}

/**
 * Replaces, in `messages`, tool outputs that are oversized (> `maxTokens`) or belong to an
 * earlier turn (index < `currentFrom`, > `earlierTurnMaxTokens`) with a placeholder naming
 * an artifact handle; the content goes to the policy's store. Failed results are never
 * replaced (they are short and must stay visible). Deterministic: the same message under
 * the same rule always gives the same placeholder, so a cached prefix stays identical.
 *
 * Pages of `open_artifact` are never kept as artifacts of their own: an earlier-turn page
 * becomes a stub naming its range in the original artifact; the current turn's pages share
 * `pageTokens` with the current messages around them, the newest first — the newest shrinks
 * to what is left (its header then says where the rest starts), older ones that no longer
 * fit become stubs.
 */
export function placeholderToolResults(input: {
  messages: readonly Message[];
  currentFrom: number;
  policy: ToolResultPolicy;
  maxTokens: number;
  counter: TokenCounter;
  /** Tokens the current messages may take with their pages. Default `maxTokens`. */
  pageTokens?: number;
}): { messages: Message[]; actions: CompactionAction[] } {
  const { policy, counter } = input;
  const earlier = policy.earlierTurnMaxTokens ?? 256;
  let memo = memos.get(policy.store);
  if (memo === undefined) {
    memo = new WeakMap();
    memos.set(policy.store, memo);
  }
  const byMessage = memo;
  const pages: FoundPage[] = [];
  const replaced = input.messages.map((message, index) => {
    if (typeof message.content === 'string' || !message.content.some((part) => part.type === 'tool-result'))
      return { key: '', message, actions: [] as CompactionAction[] };
    const current = index >= input.currentFrom;
    const limit = current ? input.maxTokens : Math.min(earlier, input.maxTokens);
    const key = `${current ? 'current' : 'earlier'} ${limit}`;
    const known = byMessage.get(message);
    if (known !== undefined && known.key === key) return known;
    const own: CompactionAction[] = [];
    let hasPage = false;
    const content = message.content.map((part, partIndex): Part => {
      if (part.type !== 'tool-result' || isErrorResult(part as Part)) return part;
      const text = toolOutputText(part.output);
      const page = part.toolName === OPEN_ARTIFACT_TOOL ? parsePage(text) : undefined;
      if (page !== undefined && current) {
        // Sized below, against the room the current messages leave.
        hasPage = true;
        pages.push({ index, part: partIndex, page, tokens: counter.countText(text) });
        return part;
      }
      const tokens = counter.countText(text);
      if (tokens <= limit) return part;
      let value: string;
      let handle: string;
      if (page === undefined) {
        const entry = policy.store.put({
          content: text,
          toolName: part.toolName,
          ...(policy.previewChars === undefined ? {} : { previewChars: policy.previewChars }),
        });
        const parts = policy.describeParts?.({ toolName: part.toolName, content: text, tokens });
        value = artifactPlaceholder(entry, { tokens, ...(parts === undefined ? {} : { parts }) });
        handle = entry.handle;
      } else {
        value = pageStub(page);
        handle = page.handle;
      }
      own.push({
        type: 'placeholder',
        blockId: historyBlockId(message),
        toolName: part.toolName,
        handle,
        fromTokens: tokens,
        toTokens: counter.countText(value),
        reason: tokens > input.maxTokens && page === undefined ? 'oversized' : 'earlier-turn',
      });
      return { ...part, output: { type: 'text', value } };
    });
    const entry: Memo = {
      key,
      message:
        own.length === 0
          ? message
          : { ...message, content, metadata: { ...message.metadata, placeholders: own.length } },
      actions: own,
    };
    // A message with a current page depends on the room around it: not memoised.
    if (!hasPage) byMessage.set(message, entry);
    return entry;
  });
  if (pages.length > 0) sizePages({ replaced, pages, input });
  return {
    messages: replaced.map((entry) => entry.message),
    actions: replaced.flatMap((entry) => entry.actions),
  };
}

/**
 * Fits the current turn's pages into `pageTokens` less the current messages around them,
 * the newest page first: it shrinks to what is left; an older page that does not fit becomes
 * a stub. Updates `replaced` in place.
 */
function sizePages(args: {
  replaced: Memo[];
  pages: FoundPage[];
  input: Parameters<typeof placeholderToolResults>[0];
}): void {
  const { replaced, pages, input } = args;
  const { counter } = input;
  const currentFrom = Math.max(0, input.currentFrom);
  const around =
    counter.countMessages(replaced.slice(currentFrom).map((entry) => entry.message)) -
    pages.reduce((sum, found) => sum + found.tokens, 0);
  let room = (input.pageTokens ?? input.maxTokens) - around;
  for (const [order, found] of [...pages].reverse().entries()) {
    let value: string | undefined;
    if (found.tokens <= room) {
      room -= found.tokens;
      continue;
    }
    if (order === 0) value = shrinkPage(found.page, counter, Math.max(0, room));
    value ??= pageStub(found.page);
    const tokens = counter.countText(value);
    room -= tokens;
    const entry = replaced[found.index] as Memo;
    const message = entry.message;
    const content = (message.content as Part[]).map((part, partIndex) =>
      partIndex === found.part && part.type === 'tool-result'
        ? { ...part, output: { type: 'text' as const, value: value as string } }
        : part,
    );
    const action: CompactionAction = {
      type: 'placeholder',
      blockId: historyBlockId(message),
      toolName: OPEN_ARTIFACT_TOOL,
      handle: found.page.handle,
      fromTokens: found.tokens,
      toTokens: tokens,
      reason: 'page-shrunk',
    };
    replaced[found.index] = {
      key: entry.key,
      message: {
        ...message,
        content,
        metadata: { ...message.metadata, placeholders: entry.actions.length + 1 },
      },
      actions: [...entry.actions, action],
    };
  }
}
