import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { api, type FileEntry, type ModelInfo, type SessionRecord } from './api.ts';
import { BlockPicker } from './block-picker.tsx';
import { CallReport } from './call-report.tsx';
import { ChatPanel } from './chat-panel.tsx';
import { ContextPreview } from './context-preview.tsx';
import { errorText } from './error-text.ts';
import { FileEditor } from './file-editor.tsx';
import { FileSearch } from './file-search.tsx';
import { FileTree, isReadOnly } from './file-tree.tsx';
import { I18nContext, initialLocale, type Locale, translator } from './i18n.ts';
import { LinkNotice, missingCallNotice, missingSessionNotice, readLink } from './link-notice.tsx';
import { OfflineBanner } from './offline-banner.tsx';
import { SessionList } from './session-list.tsx';
import { TabList } from './tab-list.tsx';

/** Which panel a narrow screen shows (below 900 px the three columns become tabs). */
type Panel = 'files' | 'main' | 'context';

/**
 * The notebook: sessions, files and search on the left, chat or editor in the middle, the
 * context preview and block picker on the right; on narrow screens the three are tabs.
 * Files, blocks, the manifest and the session list are re-read when the server says they
 * changed (server-sent events), never on a timer. A skip link (the first Tab stop) and the `/`
 * key go straight to the chat input.
 */
export function App() {
  const [locale, setLocale] = useState<Locale>(initialLocale);
  const i18n = useMemo(() => ({ t: translator(locale), locale }), [locale]);
  const { t } = i18n;
  // The session and call of the link the page opened on (`?session=`, `?call=`); `unchecked`
  // holds those not yet found. One that is not there is said in a notice and leaves the URL.
  const [opening] = useState(() => readLink(location.search));
  const unchecked = useRef({ ...opening });
  const replacedLinkSession = useRef(false);
  const [notice, setNotice] = useState<string | undefined>();
  const [sessions, setSessions] = useState<SessionRecord[]>([]);
  const [model, setModel] = useState<ModelInfo | undefined>();
  const [sessionId, setSessionId] = useState<string | undefined>(opening.session);
  const [files, setFiles] = useState<FileEntry[]>([]);
  const [openFile, setOpenFile] = useState<string | undefined>();
  const [openLine, setOpenLine] = useState<{ line: number; at: number } | undefined>();
  // A call's report open in the URL (`?call=`) opens again on reload, back and forward.
  const [panel, setPanel] = useState<Panel>(opening.call === undefined ? 'main' : 'context');
  const [live, setLive] = useState(false);
  // Bumped when the stored history changes outside this page's chat (an agent, the CLI, MCP).
  const [historyVersion, setHistoryVersion] = useState(0);
  const [tab, setTab] = useState<'chat' | 'editor'>('chat');
  const [version, setVersion] = useState(0);
  /** Bumped when only the call log changed: the file list alone is read again. */
  const [listVersion, setListVersion] = useState(0);
  const [draft, setDraft] = useState('');
  const [error, setError] = useState<string | undefined>();
  // The logged call an answer's chip opened: the inspector shows it instead of the preview.
  const [openCall, setOpenCall] = useState<string | undefined>(opening.call);
  const changed = useCallback(() => setVersion((value) => value + 1), []);
  const tRef = useRef(t);
  tRef.current = t;
  const fail = useCallback((cause: unknown) => setError(errorText(cause, tRef.current)), []);

  const loadSessions = useCallback(async () => {
    try {
      const result = await api.listSessions();
      setSessions(result.sessions);
      setModel(result.model);
      if (unchecked.current.session !== undefined) {
        unchecked.current.session = undefined;
        if (!result.sessions.some((session) => session.id === opening.session)) {
          unchecked.current.call = undefined;
          replacedLinkSession.current = true;
          setNotice(missingSessionNotice(opening, tRef.current));
          if (opening.call !== undefined) {
            setOpenCall(undefined);
            setPanel('main');
          }
        }
      }
      setSessionId((current) =>
        current !== undefined && result.sessions.some((session) => session.id === current)
          ? current
          : result.sessions[0]?.id,
      );
    } catch (cause) {
      fail(cause);
    }
  }, [fail, opening]);
  useEffect(() => {
    void loadSessions();
  }, [loadSessions]);

  // What was asked of the link's missing session before the list came back failed with "does
  // not exist"; the notice says it once. Cleared once the first session replaced it: from then
  // on every request of the missing one is ignored, so no such error comes after.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the session was replaced
  useEffect(() => {
    if (!replacedLinkSession.current) return;
    replacedLinkSession.current = false;
    setError(undefined);
  }, [sessionId]);

  /** Switches session with nothing of the previous one left: open file, call, draft, files. */
  const selectSession = (id: string) => {
    if (id === sessionId) return;
    unchecked.current.call = undefined;
    setOpenFile(undefined);
    setOpenCall(undefined);
    setDraft('');
    setFiles([]);
    setSessionId(id);
  };

  const focusInput = useCallback(() => {
    setTab('chat');
    setPanel('main');
    requestAnimationFrame(() =>
      document.querySelector<HTMLElement>('[data-testid="chat-input"]')?.focus({ preventScroll: false }),
    );
  }, []);
  // `/` anywhere outside a text field goes to the chat input (as in many chat apps).
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey) return;
      const target = event.target as HTMLElement | null;
      if (target?.closest('input, textarea, select, [contenteditable="true"], dialog') != null) return;
      event.preventDefault();
      focusInput();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [focusInput]);

  // Files also change outside this page (another editor, an agent over MCP): the server pushes
  // each change; unsaved editor text is never replaced (see FileEditor).
  useEffect(() => {
    if (sessionId === undefined) return;
    let opened = false;
    const stop = api.watch(sessionId, {
      onOpen: () => {
        setLive(true);
        // Reconnected: files and the history may have changed meanwhile (a turn the server
        // stored as it stopped, another writer).
        if (opened) {
          changed();
          setHistoryVersion((value) => value + 1);
        }
        opened = true;
      },
      onChange: (change) => {
        if (change.paths.includes('sessions.json')) void loadSessions();
        // A logged model call changes only the call log, which no compile reads: the file list
        // counts it; the preview, the blocks and an open file stay as they are (each step of a
        // tool loop logs a call, and each would have recompiled the preview).
        if (change.paths.every(inCallLog)) setListVersion((value) => value + 1);
        else changed();
        if (change.paths.some((path) => path === 'messages.json' || path === 'memory.json'))
          setHistoryVersion((value) => value + 1);
      },
      // The server stopped or the network went: the page no longer follows changes.
      onDrop: () => setLive(false),
    });
    return () => {
      stop();
      setLive(false);
    };
  }, [sessionId, changed, loadSessions]);

  useEffect(() => {
    document.documentElement.lang = locale === 'zh' ? 'zh-CN' : 'en';
    localStorage.setItem('ctxloom-locale', locale);
  }, [locale]);

  useEffect(() => {
    if (sessionId === undefined) return;
    const url = new URL(location.href);
    url.searchParams.set('session', sessionId);
    if (openCall === undefined) url.searchParams.delete('call');
    else url.searchParams.set('call', openCall);
    history.replaceState(null, '', url);
  }, [sessionId, openCall]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `version` and `listVersion` bumps mean "files may have changed"
  useEffect(() => {
    if (sessionId === undefined) return;
    let live = true;
    api.listFiles(sessionId).then(
      (list) => live && setFiles(list),
      (cause) => live && fail(cause),
    );
    return () => {
      live = false;
    };
  }, [sessionId, version, listVersion]);

  const openInEditor = (path: string, line?: number) => {
    setOpenFile(path);
    setOpenLine(line === undefined ? undefined : { line, at: Date.now() });
    setTab('editor');
    setPanel('main');
  };
  const openCallReport = (callId: string) => {
    unchecked.current.call = undefined;
    setOpenCall(callId);
    setPanel('context');
  };
  const closeCallReport = () => {
    unchecked.current.call = undefined;
    const callId = openCall;
    setOpenCall(undefined);
    setPanel('main');
    // Back where the user came from: the chip that opened the report.
    requestAnimationFrame(() =>
      document
        .querySelector<HTMLButtonElement>(`button[data-call="${CSS.escape(callId ?? '')}"]`)
        ?.focus({ preventScroll: false }),
    );
  };
  // The link's call is not in the log: the preview shows, the notice says why.
  const linkedCallMissing = () => {
    unchecked.current.call = undefined;
    setNotice(missingCallNotice(opening.call ?? '', t));
    setOpenCall(undefined);
  };

  return (
    <I18nContext.Provider value={i18n}>
      <div className="app">
        <button type="button" className="skip-link" onClick={focusInput}>
          {t('skipToInput')}
        </button>
        <header className="topbar">
          <div className="brand">
            <span className="logo" aria-hidden="true">
              ◧
            </span>
            <strong>{t('appTitle')}</strong>
            <span className="tagline">{t('tagline')}</span>
          </div>
          <div className="topbar-right">
            {sessionId && (
              <span className={`live-dot ${live ? 'on' : ''}`} role="status">
                {live ? t('live') : t('reconnecting')}
              </span>
            )}
            {model && (
              <span className={`model-badge ${model.offline ? 'offline' : 'online'}`} title={model.spec}>
                {t('modelLabel')}: {model.offline ? t('offlineSpec') : model.spec}
              </span>
            )}
            <button
              type="button"
              className="ghost"
              aria-label={t('languageLabel')}
              onClick={() => setLocale(locale === 'en' ? 'zh' : 'en')}
            >
              {t('language')}
            </button>
          </div>
        </header>
        {model?.offline && <OfflineBanner />}
        {error && (
          <div role="alert" className="error-banner">
            <span className="error-text">
              {t('error')}: {error}
            </span>
            <button
              type="button"
              className="ghost"
              onClick={() => setError(undefined)}
              aria-label={t('close')}
            >
              ×
            </button>
          </div>
        )}
        <LinkNotice text={notice} onClose={() => setNotice(undefined)} />
        <TabList
          className="panel-tabs"
          label={t('panels')}
          idPrefix="panel-tab"
          controls={{ files: 'panel-files', main: 'panel-main', context: 'panel-context' }}
          tabs={[
            { id: 'files', label: t('panelFiles') },
            { id: 'main', label: t('panelMain') },
            { id: 'context', label: t('panelContext') },
          ]}
          selected={panel}
          onSelect={setPanel}
        />
        <main className="layout" data-panel={panel}>
          <nav id="panel-files" className="sidebar" aria-label={t('sessions')}>
            <SessionList
              sessions={sessions}
              current={sessionId}
              onSelect={(id) => {
                selectSession(id);
                setPanel('main');
              }}
              onChanged={loadSessions}
              onError={setError}
            />
            {sessionId && (
              <FileTree
                sessionId={sessionId}
                files={files}
                current={openFile}
                onOpen={openInEditor}
                onMoved={(from, to) => {
                  if (openFile === from) setOpenFile(to);
                  changed();
                }}
                onError={setError}
              />
            )}
            {sessionId && <FileSearch sessionId={sessionId} onOpen={openInEditor} onError={setError} />}
          </nav>
          <section id="panel-main" className="center">
            <TabList
              className="tabs"
              label={t('centerTabs')}
              idPrefix="center-tab"
              controls={{ chat: 'center-chat', editor: 'center-editor' }}
              tabs={[
                { id: 'chat', label: t('chat') },
                { id: 'editor', label: openFile ? `${t('editor')} · ${openFile}` : t('editor') },
              ]}
              selected={tab}
              onSelect={setTab}
            />
            {sessionId && (
              <>
                <div
                  id="center-chat"
                  className="tab-panel"
                  role="tabpanel"
                  aria-labelledby="center-tab-chat"
                  hidden={tab !== 'chat'}
                >
                  <ChatPanel
                    key={sessionId}
                    sessionId={sessionId}
                    files={files}
                    historyVersion={historyVersion}
                    onDraft={setDraft}
                    onChanged={changed}
                    onError={setError}
                    onOpenCall={openCallReport}
                    openCallId={openCall}
                  />
                </div>
                <div
                  id="center-editor"
                  className="tab-panel"
                  role="tabpanel"
                  aria-labelledby="center-tab-editor"
                  hidden={tab !== 'editor'}
                >
                  <FileEditor
                    key={sessionId}
                    sessionId={sessionId}
                    path={openFile}
                    readOnly={isReadOnly(files.find((file) => file.path === openFile))}
                    line={openLine}
                    version={version}
                    onSaved={changed}
                  />
                </div>
              </>
            )}
          </section>
          <aside id="panel-context" className="inspector" aria-label={t('context')}>
            {sessionId && (
              <>
                {/* Mounted while a call's report is open: closing the report shows it as it was, no new compile. */}
                <div className="preview-slot" hidden={openCall !== undefined}>
                  <ContextPreview
                    key={`preview-${sessionId}`}
                    sessionId={sessionId}
                    version={version}
                    draft={draft}
                    onChanged={changed}
                  />
                </div>
                {openCall !== undefined && (
                  <CallReport
                    sessionId={sessionId}
                    callId={openCall}
                    onClose={closeCallReport}
                    onMissing={openCall === unchecked.current.call ? linkedCallMissing : undefined}
                  />
                )}
                <BlockPicker
                  key={`picker-${sessionId}`}
                  sessionId={sessionId}
                  version={version}
                  onChanged={changed}
                  onError={setError}
                />
              </>
            )}
          </aside>
        </main>
      </div>
    </I18nContext.Provider>
  );
}

/** Whether a changed path (from the session folder) is the call log's folder or a record in it. */
function inCallLog(path: string): boolean {
  return path === 'calls' || path.startsWith('calls/');
}
