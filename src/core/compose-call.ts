import type { ContextBlock } from './block.ts';
import { renderContexts } from './collector.ts';
import type { CompileRequest } from './compile-types.ts';
import { compose, layerOf } from './compose.ts';
import { type HistoryBlockMetadata, measureMessage } from './history.ts';
import type { ContextKey } from './layers.ts';
import type { Message } from './message.ts';
import type { ResolvedCall } from './resolve-call.ts';
import type { Selection } from './select.ts';
import { countMessage } from './tokens.ts';

/** The messages of one call and what they cost (see {@link composeCall}). */
export interface ComposedCall {
  messages: Message[];
  /** Each message's cost as sent, aligned with `messages` (request overhead excluded). */
  costs: number[];
  /** Tokens sent: request overhead, every message, the tool definitions. */
  total: number;
  contexts: Record<ContextKey, string>;
  history: Message[];
  steps: Message[];
}

/**
 * Stage 5, compose: renders the kept blocks into the call's ordered messages (history before
 * the query, the steps after it) and counts exactly what is sent.
 */
export function composeCall(call: ResolvedCall, request: CompileRequest, selection: Selection): ComposedCall {
  const { counter, query } = call;
  // Kept blocks come in collection order, so history blocks are already oldest first.
  const history: Message[] = [];
  const steps: Message[] = [];
  const historyCosts: number[] = [];
  const keptContext: ContextBlock[] = [];
  for (const block of selection.kept) {
    if (block.layer === 'history') {
      const message = (block.metadata as HistoryBlockMetadata).message;
      (call.isStep(block) ? steps : history).push(message);
      historyCosts.push(block.tokens);
    } else {
      keptContext.push(block);
    }
  }
  const contexts = { ...call.fixedContexts, ...renderContexts(keptContext) };
  const messages = compose({
    ...(request.systemPrompt === undefined ? {} : { systemPrompt: request.systemPrompt }),
    contexts,
    history,
    ...(query === undefined ? {} : { query: call.queryInHistory ?? query }),
    steps,
    policy: call.policy,
  });
  // Count what is emitted: every message is a separate API field, so the request costs the
  // request overhead plus each message's own cost (memoised per message, exact).
  let historyIndex = 0;
  const costs = messages.map((message) =>
    layerOf(message) === 'history'
      ? (historyCosts[historyIndex++] ?? measureMessage(message, counter).tokens)
      : countMessage(counter, message),
  );
  const total =
    (messages.length === 0 ? 0 : counter.overhead.perRequest + costs.reduce((sum, cost) => sum + cost, 0)) +
    call.toolTokens;
  return { messages, costs, total, contexts, history, steps };
}
