import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport } from 'ai';
import { useEffect, useMemo, useRef, useState } from 'react';
import { api, authHeaders, type FileEntry, type NotebookUIMessage } from './api.ts';
import { ChatInput } from './chat-input.tsx';
import { useI18n } from './i18n.ts';
import { MessageView } from './message-view.tsx';

/**
 * The chat: the AI SDK's own `useChat` over `DefaultChatTransport` (the server's UI message
 * stream), with the stored history loaded from the server. Only the new message is sent —
 * the server owns the history.
 */
export function ChatPanel(props: {
  sessionId: string;
  files: FileEntry[];
  onDraft: (text: string) => void;
  onChanged: () => void;
  onError: (message: string) => void;
}) {
  const { t } = useI18n();
  const { sessionId, onChanged } = props;
  const transport = useMemo(
    () =>
      new DefaultChatTransport<NotebookUIMessage>({
        api: api.chatUrl(sessionId),
        headers: () => authHeaders(),
        prepareSendMessagesRequest: ({ id, messages, trigger, messageId }) => ({
          body: { id, trigger, messageId, messages: messages.slice(-1) },
        }),
      }),
    [sessionId],
  );
  const reload = async () => {
    const { messages } = await api.getSession(sessionId);
    setMessages(messages);
  };
  const { messages, sendMessage, status, stop, setMessages, error } = useChat<NotebookUIMessage>({
    id: sessionId,
    transport,
    onFinish: () => {
      // Stored ids and memory states come from the server's record.
      void reload().then(onChanged);
    },
  });
  const [loaded, setLoaded] = useState(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: load once per session
  useEffect(() => {
    reload().then(
      () => setLoaded(true),
      (cause) => props.onError(String(cause)),
    );
  }, [sessionId]);

  const list = useRef<HTMLDivElement>(null);
  const last = messages.at(-1);
  const lastLength = last?.parts.length ?? 0;
  // biome-ignore lint/correctness/useExhaustiveDependencies: scroll on new content
  useEffect(() => {
    list.current?.scrollTo({ top: list.current.scrollHeight });
  }, [messages.length, lastLength, status]);

  const busy = status === 'submitted' || status === 'streaming';
  const curate = async (message: NotebookUIMessage, action: 'exclude' | 'restore') => {
    try {
      await api.memory(sessionId, message.metadata?.storedIds ?? [message.id], action);
      await reload();
      onChanged();
    } catch (cause) {
      props.onError(String(cause));
    }
  };

  return (
    <div className="chat">
      <div className="messages" ref={list} aria-live="polite" aria-busy={busy}>
        {loaded && messages.length === 0 && <p className="empty">{t('emptyChat')}</p>}
        {messages.map((message) => (
          <MessageView
            key={message.id}
            message={message}
            onCurate={(action) => void curate(message, action)}
          />
        ))}
        {status === 'submitted' && <p className="streaming">{t('thinking')}</p>}
        {error && (
          <p className="chat-error" role="alert">
            {error.message}
          </p>
        )}
      </div>
      <div className="composer">
        <ChatInput
          sessionId={sessionId}
          files={props.files}
          label={t('inputLabel')}
          placeholderText={t('inputPlaceholder')}
          sendLabel={t('send')}
          disabled={busy}
          onChange={props.onDraft}
          onSubmit={(text) => {
            if (busy) return false;
            props.onDraft('');
            void sendMessage({ text });
            return true;
          }}
        />
        {busy && (
          <button type="button" className="danger" onClick={() => void stop()}>
            {t('stop')}
          </button>
        )}
      </div>
    </div>
  );
}
