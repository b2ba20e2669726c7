import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport } from 'ai';
import { type KeyboardEvent, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import {
  api,
  authHeaders,
  type BadReference,
  chatErrorOf,
  type FileEntry,
  type NotebookUIMessage,
} from './api.ts';
import { BadReferences } from './bad-references.tsx';
import { ChatInput, type ChatInputControl } from './chat-input.tsx';
import { errorText } from './error-text.ts';
import { holdsCall } from './holds-call.ts';
import { useI18n } from './i18n.ts';
import { keepUnchanged } from './keep-unchanged.ts';
import { markdownReady } from './markdown.tsx';
import { MessageView } from './message-view.tsx';
import { spansOf } from './remove-references.ts';
import { hasModifier } from './tab-list.tsx';
import { NearViewportRoot } from './use-near-viewport.ts';

/**
 * Messages at the end of the list whose Markdown is formatted at once; the others wait until
 * they come near the visible area. More than a tall screen of them: the list opens at its end
 * already formatted, and a new message never shows its text unformatted first.
 */
const FORMATTED_AT_END = 20;

/**
 * The chat: the AI SDK's own `useChat` over `DefaultChatTransport` (the server's UI message
 * stream), with the stored history loaded from the server. Only the new message is sent —
 * the server owns the history. A message refused for its references goes back into the input,
 * its bad references marked and listed, with "send without them".
 */
export function ChatPanel(props: {
  sessionId: string;
  files: FileEntry[];
  /** Bumped when `messages.json` or `memory.json` changed on the server. */
  historyVersion: number;
  onDraft: (text: string) => void;
  onChanged: () => void;
  onError: (message: string) => void;
  /** Opens a logged call's report (an answer's report chip). */
  onOpenCall: (callId: string) => void;
  /** The call whose report is open, if any. */
  openCallId: string | undefined;
}) {
  const { t } = useI18n();
  const { sessionId, onChanged, openCallId } = props;
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
  // Only the latest of overlapping reloads is shown (an older, slower answer is stale). A
  // message the reload did not change keeps its object, so its (memoised) view is not rendered
  // again: after a turn, the new messages render, not the whole history.
  const loads = useRef(0);
  const reload = async () => {
    const load = ++loads.current;
    // The first load waits for the Markdown renderer too: stored answers show formatted at once.
    const [{ messages }] = await Promise.all([api.getSession(sessionId), markdownReady]);
    if (load === loads.current) setMessages((current) => keepUnchanged(current, messages));
    return messages;
  };
  const { messages, sendMessage, status, stop, setMessages, error, clearError } = useChat<NotebookUIMessage>({
    id: sessionId,
    transport,
    onFinish: ({ isError }) => {
      // Stored ids and curation states come from the server's record. When the server cannot
      // be reached (it stopped mid-turn) the list stays as it is, its error shown; the record
      // is read again when the server is back.
      reload().then(
        (stored) => {
          // A failed turn's error is stored and shown with its answer: not a second time below.
          if (isError && stored.at(-1)?.metadata?.error !== undefined) clearError();
          onChanged();
        },
        () => undefined,
      );
    },
  });
  const [loaded, setLoaded] = useState(false);
  const input = useRef<ChatInputControl | null>(null);
  /** The text of the message being sent, to put back if it is refused. */
  const sending = useRef('');
  const [refused, setRefused] = useState<BadReference[] | undefined>();
  /** Why the last message was not sent (it is back in the input), until the next is typed. */
  const [notSent, setNotSent] = useState<string | undefined>();
  // A message refused for its references is not lost: it leaves the list and returns to the
  // input, its bad references marked; the list under the input names each one. Nor is one the
  // server never took (refused before its stream started, or the server out of reach): it
  // goes back into the input, and why it was not sent shows instead.
  // biome-ignore lint/correctness/useExhaustiveDependencies: only a new error matters
  useEffect(() => {
    if (error === undefined) return;
    const { references, code, message } = chatErrorOf(error);
    if (references === undefined) {
      const text = sending.current;
      if (messages.at(-1)?.role !== 'user' || text === '') return;
      sending.current = '';
      setMessages((current) => current.slice(0, -1));
      clearError();
      input.current?.restore(text, []);
      props.onDraft(text);
      // After `restore`: its edit clears what was shown for the previous message.
      setNotSent(
        t('notSent', {
          error: code === undefined && error.name === 'TypeError' ? t('unreachable') : message,
        }),
      );
      return;
    }
    const text = sending.current;
    setMessages((current) => {
      const last = current.at(-1);
      return last?.role === 'user' ? current.slice(0, -1) : current;
    });
    clearError();
    setRefused(references);
    input.current?.restore(
      text,
      spansOf(text, references).map((span) => ({ ...span, raw: text.slice(span.from, span.to) })),
    );
    props.onDraft(text);
  }, [error]);
  const send = (text: string) => {
    sending.current = text;
    setRefused(undefined);
    setNotSent(undefined);
    props.onDraft('');
    void sendMessage({ text });
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: load once per session
  useEffect(() => {
    let live = true;
    reload().then(
      () => setLoaded(true),
      // A session no longer shown (a link's missing one, replaced) is not the page's error.
      (cause) => live && props.onError(errorText(cause, t)),
    );
    return () => {
      live = false;
    };
  }, [sessionId]);

  // The history changed elsewhere (another tab, an agent over MCP): show it, unless this
  // page is streaming an answer (its own onFinish reloads then).
  // biome-ignore lint/correctness/useExhaustiveDependencies: only the version bump matters
  useEffect(() => {
    if (props.historyVersion === 0 || status === 'submitted' || status === 'streaming') return;
    reload().catch(() => undefined);
  }, [props.historyVersion]);

  const list = useRef<HTMLDivElement>(null);
  const last = messages.at(-1);
  const lastLength = last?.parts.length ?? 0;
  // biome-ignore lint/correctness/useExhaustiveDependencies: scroll on new content
  useEffect(() => {
    list.current?.scrollTo({ top: list.current.scrollHeight });
  }, [messages.length, lastLength, status]);
  // A list at its end stays there when its box or its newest messages change size after the
  // scroll above (a banner arriving above it, calls' chips or Markdown arriving in the newest
  // answers, the window resized): the same scrollTop would leave them below the fold. It stops
  // following only when scrolled up, away from its end.
  const following = useRef(true);
  useEffect(() => {
    const element = list.current;
    if (element === null) return;
    let lastTop = element.scrollTop;
    const onScroll = () => {
      const top = element.scrollTop;
      if (element.scrollHeight - top - element.clientHeight < 2) following.current = true;
      else if (top < lastTop) following.current = false;
      lastTop = top;
    };
    element.addEventListener('scroll', onScroll, { passive: true });
    return () => element.removeEventListener('scroll', onScroll);
  }, []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the newest messages change with the count
  useEffect(() => {
    const element = list.current;
    if (element === null) return;
    const observer = new ResizeObserver(() => {
      if (following.current) element.scrollTo({ top: element.scrollHeight });
    });
    observer.observe(element);
    const { children } = element;
    for (let index = Math.max(0, children.length - FORMATTED_AT_END); index < children.length; index++)
      observer.observe(children[index] as Element);
    return () => observer.disconnect();
  }, [messages.length]);

  const busy = status === 'submitted' || status === 'streaming';
  // One tab stop for the whole list (roving tabindex): arrow keys move between the messages'
  // curation buttons (or, from a report chip, between the chips), so Tab reaches the input
  // after one message's controls instead of every message's.
  const curatable = messages.filter((message) => (message.metadata?.storedIds?.length ?? 0) > 0);
  const [focusId, setFocusId] = useState<string | undefined>();
  const tabStopId = curatable.some((message) => message.id === focusId) ? focusId : curatable.at(-1)?.id;
  const moveFocus = (event: KeyboardEvent<HTMLDivElement>) => {
    if (hasModifier(event)) return;
    const kind = (event.target as HTMLElement).hasAttribute('data-call') ? 'data-call' : 'data-curate';
    const buttons = Array.from(list.current?.querySelectorAll<HTMLButtonElement>(`button[${kind}]`) ?? []);
    const at = buttons.indexOf(event.target as HTMLButtonElement);
    if (at < 0) return;
    const to =
      event.key === 'ArrowDown' || event.key === 'ArrowRight'
        ? Math.min(buttons.length - 1, at + 1)
        : event.key === 'ArrowUp' || event.key === 'ArrowLeft'
          ? Math.max(0, at - 1)
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? buttons.length - 1
              : undefined;
    if (to === undefined) return;
    event.preventDefault();
    const target = buttons[to];
    target?.focus();
    target?.scrollIntoView({ block: 'nearest' });
    setFocusId(target?.closest<HTMLElement>('[data-message-id]')?.dataset.messageId);
  };
  const suggestion = props.files.find(
    (file) =>
      !file.global && file.kind === 'file' && file.path.endsWith('.md') && file.path !== 'session-prompt.md',
  )?.path;
  const curate = async (message: NotebookUIMessage, action: 'exclude' | 'restore') => {
    try {
      await api.curate(sessionId, message.metadata?.storedIds ?? [message.id], action);
      await reload();
      onChanged();
    } catch (cause) {
      props.onError(errorText(cause, t));
    }
  };

  // The messages render again only when they, the tab stop or the open call change — not at
  // every key typed into the input (the draft re-renders this panel): in a long session that
  // rendered every message per key. The handlers are read through a ref, so they stay current
  // and stay the same functions (a memoised message view compares them). Only the message
  // holding the open call is given its id: opening or closing a report renders that message,
  // not the whole history.
  const handlers = useRef({ curate, onOpenCall: props.onOpenCall });
  handlers.current = { curate, onOpenCall: props.onOpenCall };
  const onCurate = useCallback(
    (message: NotebookUIMessage, action: 'exclude' | 'restore') =>
      void handlers.current.curate(message, action),
    [],
  );
  const onOpenCall = useCallback((callId: string) => handlers.current.onOpenCall(callId), []);
  const messageViews = useMemo(
    () =>
      messages.map((message, index) => (
        <MessageView
          key={message.id}
          message={message}
          formatAtOnce={index >= messages.length - FORMATTED_AT_END}
          tabStop={message.id === tabStopId}
          onCurate={onCurate}
          onOpenCall={onOpenCall}
          openCallId={holdsCall(message, openCallId) ? openCallId : undefined}
        />
      )),
    [messages, tabStopId, openCallId, onCurate, onOpenCall],
  );

  return (
    <div className="chat">
      <div
        className="messages"
        ref={list}
        role="log"
        aria-label={t('messages')}
        aria-busy={busy}
        onKeyDown={moveFocus}
      >
        {loaded && messages.length === 0 && (
          <p className="empty">
            {suggestion === undefined ? t('emptyChat') : t('emptyChatFile', { file: suggestion })}
          </p>
        )}
        <NearViewportRoot.Provider value={list}>{messageViews}</NearViewportRoot.Provider>
        {status === 'submitted' && <p className="streaming">{t('thinking')}</p>}
        {error && chatErrorOf(error).references === undefined && (
          <p className="chat-error" role="alert">
            {chatErrorOf(error).message}
          </p>
        )}
        {notSent !== undefined && (
          <p className="chat-error" role="alert" data-testid="not-sent">
            {notSent}
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
          sharedLabel={t('sharedFile')}
          disabled={busy}
          control={input}
          onChange={(text) => {
            // A refused message (e.g. a reference to a missing file) stops showing once the next one is typed.
            if (error !== undefined) clearError();
            setNotSent(undefined);
            props.onDraft(text);
          }}
          onSubmit={(text) => {
            if (busy) return false;
            send(text);
            return true;
          }}
        />
        {busy && (
          <button type="button" className="danger" onClick={() => void stop()}>
            {t('stop')}
          </button>
        )}
      </div>
      {refused !== undefined && (
        <BadReferences
          references={refused}
          disabled={busy}
          onSendWithout={() => {
            const text = input.current?.textWithoutMarked() ?? '';
            if (text === '') return;
            input.current?.clear();
            send(text);
          }}
          onClose={() => setRefused(undefined)}
        />
      )}
    </div>
  );
}
