import { memo, useRef } from 'react';
import type { MessageContextSummary } from '../../src/stream/index.ts';
import type { NotebookUIMessage } from './api.ts';
import { useI18n } from './i18n.ts';
import { Markdown } from './markdown.tsx';
import { formatTokens } from './report-format.ts';
import { useNearViewport } from './use-near-viewport.ts';

type Part = NotebookUIMessage['parts'][number];
interface ToolView {
  name: string;
  state: string;
  input: unknown;
  output?: unknown;
  errorText?: string | undefined;
}

/**
 * One chat message: text, tool calls with their results, the context-report chip, curation.
 * Its Markdown is formatted once the message comes near the list's visible area (before that
 * the text shows as written), so a long history opens without formatting every message.
 * Memoised: it renders again only when a prop changes — the list keeps an unchanged message's
 * object across a reload (`keepUnchanged`) and passes handlers that stay the same.
 */
export const MessageView = memo(function MessageView(props: {
  message: NotebookUIMessage;
  /** Formats the Markdown at once, not when the message comes near (the messages the list opens on). */
  formatAtOnce: boolean;
  /** The list's one tab stop (roving tabindex): only that message's curation button is tabbable. */
  tabStop: boolean;
  onCurate: (message: NotebookUIMessage, action: 'exclude' | 'restore') => void;
  /** Opens a logged call's report (the chip of an answer whose call is logged). */
  onOpenCall?: (callId: string) => void;
  /**
   * The call whose report is open, given only to the message that holds it (its chip shows
   * pressed); undefined for every other message, so opening a report renders one message.
   */
  openCallId?: string | undefined;
}) {
  const { t, locale } = useI18n();
  const { message } = props;
  const curation = message.metadata?.memory;
  const stored = (message.metadata?.storedIds?.length ?? 0) > 0;
  const article = useRef<HTMLElement>(null);
  const near = useNearViewport(article, props.formatAtOnce);
  return (
    <article
      ref={article}
      className={`message ${message.role} ${curation ? 'curated' : ''}`}
      data-role={message.role}
      data-message-id={message.id}
      aria-label={message.role === 'user' ? t('you') : t('assistant')}
    >
      <header className="message-head">
        <span className={`role ${message.role}`}>{message.role === 'user' ? t('you') : t('assistant')}</span>
        {message.metadata?.createdAt && (
          <time dateTime={message.metadata.createdAt}>
            {new Date(message.metadata.createdAt).toLocaleString(locale === 'zh' ? 'zh-CN' : 'en-US')}
          </time>
        )}
        {message.metadata?.partial && !message.metadata.error && (
          <span className="badge warn">{t('partial')}</span>
        )}
        {curation && (
          <span className="badge muted" title={curation.summary}>
            {curation.state === 'excluded' ? t('excluded') : t('dismissed')}
          </span>
        )}
        {stored && (
          <button
            type="button"
            className="link"
            data-curate=""
            tabIndex={props.tabStop ? 0 : -1}
            onClick={() => props.onCurate(message, curation ? 'restore' : 'exclude')}
          >
            {curation ? t('restore') : t('dismiss')}
          </button>
        )}
      </header>
      <div className="message-body">
        {message.metadata?.context && !message.parts.some((part) => part.type === 'data-context-report') && (
          <ReportChip
            summary={message.metadata.context}
            tabStop={props.tabStop}
            onOpen={props.onOpenCall}
            openCallId={props.openCallId}
          />
        )}
        {message.parts.map((part, index) => (
          <PartView
            // biome-ignore lint/suspicious/noArrayIndexKey: parts only ever append; the index is their identity
            key={`${message.id}-${index}`}
            part={part}
            plain={!near}
            tabStop={props.tabStop}
            onOpenCall={props.onOpenCall}
            openCallId={props.openCallId}
          />
        ))}
        {message.metadata?.error && (
          <p className="chat-error turn-error" data-testid="turn-error" title={t('turnFailed')}>
            {message.metadata.error.message}
          </p>
        )}
      </div>
    </article>
  );
});

/**
 * What the call behind an answer was sent: tokens and references. With a logged call it is a
 * button that opens the call's report; like the curation button, only the list's tab-stop
 * message has it in the tab order (arrow keys move between the chips).
 */
function ReportChip(props: {
  summary: MessageContextSummary;
  tabStop?: boolean | undefined;
  onOpen?: ((callId: string) => void) | undefined;
  openCallId?: string | undefined;
}) {
  const { t } = useI18n();
  const { summary, onOpen } = props;
  const callId = summary.callId;
  const references = summary.references.map(
    (reference) => `${reference.path}:${reference.startLine}-${reference.endLine}`,
  );
  const text = `${t('reportChip', {
    used: formatTokens(summary.totalTokens),
    budget: formatTokens(summary.inputBudget),
  })}${references.length > 0 ? ` · ${references.join(', ')}` : ''}${
    summary.compacted === undefined ? '' : ` · ${t('compactedChip', { n: summary.compacted })}`
  }`;
  if (callId === undefined || onOpen === undefined)
    return (
      <div className="report-chip" data-testid="report-chip">
        {text}
      </div>
    );
  return (
    <button
      type="button"
      className="report-chip"
      data-testid="report-chip"
      data-call={callId}
      title={t('openCall')}
      aria-pressed={props.openCallId === callId}
      tabIndex={props.tabStop ? 0 : -1}
      onClick={() => onOpen(callId)}
    >
      {text}
    </button>
  );
}

function PartView(props: {
  part: Part;
  plain: boolean;
  tabStop?: boolean | undefined;
  onOpenCall?: ((callId: string) => void) | undefined;
  openCallId?: string | undefined;
}) {
  const { t } = useI18n();
  const { part } = props;
  if (part.type === 'text') return <Markdown className="text" text={part.text} plain={props.plain} />;
  if (part.type === 'reasoning')
    return <Markdown className="reasoning" text={part.text} plain={props.plain} />;
  if (part.type === 'data-context-report') {
    const { report, references, callId } = part.data;
    return (
      <ReportChip
        summary={{
          totalTokens: report.totalTokens,
          inputBudget: report.inputBudget,
          references,
          ...(callId === undefined ? {} : { callId }),
          ...compactedOf(report.compaction),
        }}
        tabStop={props.tabStop}
        onOpen={props.onOpenCall}
        openCallId={props.openCallId}
      />
    );
  }
  const tool = toolOf(part);
  if (tool === undefined) return null;
  const failed = tool.state === 'output-error';
  const done = tool.state === 'output-available' || failed;
  const output = (typeof tool.output === 'string' ? tool.output : JSON.stringify(tool.output, null, 2)) ?? '';
  const hidden = failed ? 0 : output.length - TOOL_OUTPUT_SHOWN;
  return (
    <details className={`tool ${failed ? 'failed' : ''}`} data-testid="tool-event">
      <summary>
        <span className="tool-badge">{t('toolCall')}</span> <code>{tool.name}</code>{' '}
        <span className="tool-args">{JSON.stringify(tool.input)}</span>
        <span className="tool-state">{done ? (failed ? '✗' : '✓') : '…'}</span>
      </summary>
      {done && (
        <pre className="tool-output">
          {failed ? `${t('toolError')}: ${tool.errorText ?? ''}` : output.slice(0, TOOL_OUTPUT_SHOWN)}
        </pre>
      )}
      {done && hidden > 0 && (
        <p className="hint tool-cut" data-testid="tool-output-cut" data-hidden={hidden}>
          {t('toolOutputCut', { n: formatTokens(hidden) })}
        </p>
      )}
    </details>
  );
}

/**
 * Characters of a tool's output the chat shows; the rest is said to be there, not dropped
 * silently (a cut output read as the whole file, its own end marker cut away).
 */
const TOOL_OUTPUT_SHOWN = 4000;

function toolOf(part: Part): ToolView | undefined {
  if (part.type === 'dynamic-tool') {
    return {
      name: part.toolName,
      state: part.state,
      input: part.input,
      output: part.output,
      errorText: part.errorText,
    };
  }
  if (part.type.startsWith('tool-') && 'toolCallId' in part) {
    const tool = part as unknown as { state: string; input: unknown; output?: unknown; errorText?: string };
    return { name: part.type.slice(5), ...tool };
  }
  return undefined;
}

/** The chat's marker of an automatic compaction before this call (decision 040). */
function compactedOf(actions: readonly { type: string; messages?: number }[]): { compacted?: number } {
  let count = 0;
  for (const action of actions) if (action.type === 'compacted') count += action.messages ?? 0;
  return count === 0 ? {} : { compacted: count };
}
