import { useCallback, useEffect, useMemo, useState } from 'react';
import { api, type FileEntry, type ModelInfo, type SessionRecord } from './api.ts';
import { BlockPicker } from './block-picker.tsx';
import { ChatPanel } from './chat-panel.tsx';
import { ContextPreview } from './context-preview.tsx';
import { FileEditor } from './file-editor.tsx';
import { FileTree } from './file-tree.tsx';
import { I18nContext, initialLocale, type Locale, translator } from './i18n.ts';
import { OfflineBanner } from './offline-banner.tsx';
import { SessionList } from './session-list.tsx';

/** The notebook: sessions and files on the left, chat or editor in the middle, context on the right. */
export function App() {
  const [locale, setLocale] = useState<Locale>(initialLocale);
  const i18n = useMemo(() => ({ t: translator(locale), locale }), [locale]);
  const { t } = i18n;
  const [sessions, setSessions] = useState<SessionRecord[]>([]);
  const [model, setModel] = useState<ModelInfo | undefined>();
  const [sessionId, setSessionId] = useState<string | undefined>(
    () => new URLSearchParams(location.search).get('session') ?? undefined,
  );
  const [files, setFiles] = useState<FileEntry[]>([]);
  const [openFile, setOpenFile] = useState<string | undefined>();
  const [tab, setTab] = useState<'chat' | 'editor'>('chat');
  const [version, setVersion] = useState(0);
  const [draft, setDraft] = useState('');
  const [error, setError] = useState<string | undefined>();
  const changed = useCallback(() => setVersion((value) => value + 1), []);

  // Files also change outside this page (another editor, an agent over MCP): look again every
  // 10 s while the page is visible. Unsaved editor text is never replaced (see FileEditor).
  useEffect(() => {
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') changed();
    }, 10_000);
    return () => clearInterval(timer);
  }, [changed]);

  useEffect(() => {
    document.documentElement.lang = locale === 'zh' ? 'zh-CN' : 'en';
    localStorage.setItem('ctxloom-locale', locale);
  }, [locale]);

  const loadSessions = useCallback(async () => {
    try {
      const result = await api.listSessions();
      setSessions(result.sessions);
      setModel(result.model);
      setSessionId((current) =>
        current !== undefined && result.sessions.some((session) => session.id === current)
          ? current
          : result.sessions[0]?.id,
      );
    } catch (cause) {
      setError(String(cause));
    }
  }, []);
  useEffect(() => {
    void loadSessions();
  }, [loadSessions]);

  useEffect(() => {
    if (sessionId === undefined) return;
    const url = new URL(location.href);
    url.searchParams.set('session', sessionId);
    history.replaceState(null, '', url);
    setOpenFile(undefined);
    setDraft('');
  }, [sessionId]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `version` bumps mean "files may have changed"
  useEffect(() => {
    if (sessionId === undefined) return;
    api.listFiles(sessionId).then(setFiles, (cause) => setError(String(cause)));
  }, [sessionId, version]);

  const openInEditor = (path: string) => {
    setOpenFile(path);
    setTab('editor');
  };

  return (
    <I18nContext.Provider value={i18n}>
      <div className="app">
        <header className="topbar">
          <div className="brand">
            <span className="logo" aria-hidden="true">
              ◧
            </span>
            <strong>{t('appTitle')}</strong>
            <span className="tagline">{t('tagline')}</span>
          </div>
          <div className="topbar-right">
            {model && (
              <span className={`model-badge ${model.offline ? 'offline' : 'online'}`} title={model.spec}>
                {t('modelLabel')}: {model.spec}
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
            {t('error')}: {error}
            <button type="button" className="ghost" onClick={() => setError(undefined)} aria-label="close">
              ×
            </button>
          </div>
        )}
        <main className="layout">
          <nav className="sidebar" aria-label={t('sessions')}>
            <SessionList
              sessions={sessions}
              current={sessionId}
              onSelect={setSessionId}
              onChanged={loadSessions}
              onError={setError}
            />
            {sessionId && <FileTree files={files} current={openFile} onOpen={openInEditor} />}
          </nav>
          <section className="center">
            <div className="tabs" role="tablist">
              <button type="button" role="tab" aria-selected={tab === 'chat'} onClick={() => setTab('chat')}>
                {t('chat')}
              </button>
              <button
                type="button"
                role="tab"
                aria-selected={tab === 'editor'}
                onClick={() => setTab('editor')}
              >
                {t('editor')}
                {openFile ? ` · ${openFile}` : ''}
              </button>
            </div>
            {sessionId && (
              <>
                <div className="tab-panel" role="tabpanel" hidden={tab !== 'chat'}>
                  <ChatPanel
                    key={sessionId}
                    sessionId={sessionId}
                    files={files}
                    onDraft={setDraft}
                    onChanged={changed}
                    onError={setError}
                  />
                </div>
                <div className="tab-panel" role="tabpanel" hidden={tab !== 'editor'}>
                  <FileEditor sessionId={sessionId} path={openFile} version={version} onSaved={changed} />
                </div>
              </>
            )}
          </section>
          <aside className="inspector" aria-label={t('context')}>
            {sessionId && (
              <>
                <BlockPicker sessionId={sessionId} version={version} onChanged={changed} onError={setError} />
                <ContextPreview sessionId={sessionId} version={version} draft={draft} onChanged={changed} />
              </>
            )}
          </aside>
        </main>
      </div>
    </I18nContext.Provider>
  );
}
