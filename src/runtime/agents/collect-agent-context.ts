import type { CompileRequest } from '../../core/compile-types.ts';
import type { Message } from '../../core/message.ts';
import type { StateBuilder, TodoSnapshot } from '../../state/index.ts';
import type { PlaceholderLocale, SessionLayers } from '../../workspace/index.ts';
import type { AgentDefinition } from './define-agent.ts';
import type { ProcessRule } from './process-rules.ts';
import { agentHistory } from './session-history.ts';

/** Input of {@link collectAgentContext}. */
export interface CollectAgentContextInput {
  agent: AgentDefinition;
  /** The node's StateBuilder: the collector reads module snapshots only, never raw state. */
  sb: StateBuilder;
  rule: ProcessRule;
  /** A runtime-only query (a worker's task, a delegated assignment); default the last user message. */
  query?: string;
  /** Extra framework rules of the process (e.g. the planner's output contract). */
  framework?: string;
  /**
   * Language of the placeholders of curated history (the session manifest's
   * `chatHistory.placeholderLocale`). Default `zh`, the manifest's default.
   */
  placeholderLocale?: PlaceholderLocale;
  /**
   * The session manifest's layers (prompts, profile and injection blocks, the turn's user
   * message with its references merged): the session's prompts come before the agent's
   * private prompt in `system`, the blocks enter as pinned blocks, and the turn's user message
   * is sent as the session compile sends it — wherever it is in the call (the query, or the
   * history of a later agent of the turn): the stored message of `query.id`, or, when no
   * stored message has that id (a preview), a query whose text is `query.text`. With the
   * session's `history` the rolling summary is the session's (its fit adds it), not the
   * Blackboard's `compression__context`. Default none.
   */
  sessionLayers?: Pick<SessionLayers, 'systemPrompt' | 'blocks' | 'query' | 'history'>;
}

/**
 * Seed 000's ContextCollector for one agent call: turns the state snapshot into the compile
 * request's plain data — the private system prompt, `framework__context`, the rendered
 * `todo__context`, the persisted `compression__context` summary, the history (unless the
 * process rule forbids it) and the query. Nothing here assembles prompt text beyond
 * rendering the TODO snapshot; ordering and budgeting are the pipeline's.
 */
export function collectAgentContext(input: CollectAgentContextInput): CompileRequest {
  const { agent, sb, rule } = input;
  const locale = input.placeholderLocale ?? 'zh';
  const framework = [agent.framework, input.framework].filter(
    (text) => text !== undefined && text.length > 0,
  );
  const layers = input.sessionLayers;
  const systemPrompt = [layers?.systemPrompt ?? '', agent.systemPrompt].filter((text) => text !== '');
  const request: CompileRequest = {
    systemPrompt: systemPrompt.join('\n\n'),
    ...(layers === undefined || layers.blocks.length === 0 ? {} : { blocks: layers.blocks }),
    contexts: {
      ...(framework.length > 0 ? { framework__context: framework.join('\n\n') } : {}),
      ...renderTodo(sb.todo.snapshot()),
    },
    metadata: { agentId: agent.id, role: rule.role },
  };
  // A long session's summary and cut come with its history layer (decision 066).
  const summary = layers?.history === undefined ? sb.compression.snapshot() : '';
  const through = sb.compression.coverage();
  if (summary.length > 0)
    request.compression = through === null ? { summary } : { summary, throughMessageId: through };
  const withReferences = turnMessage(layers?.query);
  const history = rule.history ? agentHistory(sb, locale).map((message) => withReferences(message)) : [];
  // Frozen: every compile of this call — each step of its tool loop, each attempt of a compact
  // stage or of the session's fit — prepares the history once (core's `prepareHistory` keeps a
  // frozen array's preparation).
  if (history.length > 0) request.history = Object.freeze(history);
  if (input.query !== undefined) {
    const query: Message = { id: `query:${agent.id}`, role: 'user', content: input.query };
    // A runtime query of the turn's text (a preview's) is the turn's message, not stored yet.
    request.query = input.query === layers?.query?.text ? withReferences(query, true) : query;
  } else {
    const last: Message | undefined = history.at(-1);
    if (last?.role === 'user') request.query = last;
    else if (!rule.history) {
      const human = agentHistory(sb, locale).findLast((message) => message.role === 'user');
      if (human !== undefined) request.query = withReferences(human);
    }
  }
  return request;
}

/**
 * The turn's user message as the session compile sends it (its references merged, their
 * provenance in `metadata`): the stored message of the query's id, or a message the caller
 * says is the turn's (`isTurn`). Any other message is as is.
 */
function turnMessage(query: SessionLayers['query']): (message: Message, isTurn?: boolean) => Message {
  return (message, isTurn = false) => {
    if (query === undefined || message.role !== 'user' || !(isTurn || message.id === query.id))
      return message;
    return { ...message, content: query.content, metadata: { ...message.metadata, ...query.metadata } };
  };
}

function renderTodo(todo: TodoSnapshot | null): { todo__context?: string } {
  if (todo === null || todo.items.length === 0) return {};
  const mark = { pending: '[ ]', in_progress: '[~]', done: '[x]', blocked: '[!]' } as const;
  const lines = todo.items.map(
    (item) => `- ${mark[item.status]} ${item.title}${item.note ? ` — ${item.note}` : ''}`,
  );
  return { todo__context: lines.join('\n') };
}
