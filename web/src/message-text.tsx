import type { Message, Part } from '../../src/core/index.ts';
import { type MessageKey, useI18n } from './i18n.ts';
import { Markdown } from './markdown.tsx';

const ROLE_KEYS: Record<Message['role'], MessageKey> = {
  user: 'roleUser',
  assistant: 'roleAssistant',
  system: 'roleSystem',
  tool: 'roleTool',
};

/**
 * One message as the model receives it, in the context preview's text view: its role, its
 * curation state (excluded / dismissed placeholders say so), and every part with its content —
 * text as Markdown, tool calls with their name and arguments, tool results with their text.
 */
export function MessageText(props: { message: Message }) {
  const { t } = useI18n();
  const { message } = props;
  const curation = (message.metadata?.memory as { state?: string } | undefined)?.state;
  const parts: Part[] =
    typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
  return (
    <div className={`context-message ${message.role}`} data-testid="context-message">
      <div className="context-message-head">
        <span className="role">{t(ROLE_KEYS[message.role])}</span>
        {curation !== undefined && (
          <span className="badge muted">{curation === 'excluded' ? t('excluded') : t('dismissed')}</span>
        )}
      </div>
      {parts.map((part, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: parts of a fixed message
        <PartText key={index} part={part} />
      ))}
    </div>
  );
}

function PartText(props: { part: Part }) {
  const { t } = useI18n();
  const { part } = props;
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return part.text.trim() === '' ? null : <Markdown text={part.text} />;
    case 'tool-call':
      return (
        <div className="context-tool" data-testid="context-tool-call">
          <span className="tool-badge">{t('toolCall')}</span> <code>{part.toolName}</code>{' '}
          <code className="tool-args">{JSON.stringify(part.input)}</code>
        </div>
      );
    case 'tool-result': {
      const output = part.output;
      const text =
        output.type === 'text' || output.type === 'error-text'
          ? output.value
          : JSON.stringify('value' in output ? output.value : output, null, 2);
      return (
        <div className="context-tool" data-testid="context-tool-result">
          <span className="tool-badge">{t('toolResult')}</span> <code>{part.toolName}</code>
          <pre className="tool-output">{text}</pre>
        </div>
      );
    }
    case 'file':
      return <code>{part.mediaType}</code>;
  }
}
