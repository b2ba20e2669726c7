import { api, type SessionRecord } from './api.ts';
import { useI18n } from './i18n.ts';

/** Sessions: pick, create, rename, delete. */
export function SessionList(props: {
  sessions: SessionRecord[];
  current: string | undefined;
  onSelect: (id: string) => void;
  onChanged: () => Promise<void>;
  onError: (message: string) => void;
}) {
  const { t } = useI18n();
  const run = async (action: () => Promise<unknown>) => {
    try {
      await action();
      await props.onChanged();
    } catch (cause) {
      props.onError(String(cause));
    }
  };
  const create = () => {
    const concept = prompt(t('newSessionPrompt'));
    if (concept?.trim())
      void run(async () => {
        const session = await api.createSession(concept.trim());
        props.onSelect(session.id);
      });
  };
  return (
    <section className="panel sessions">
      <div className="panel-head">
        <h2>{t('sessions')}</h2>
        <button type="button" className="small" onClick={create}>
          + {t('newSession')}
        </button>
      </div>
      <ul className="session-list">
        {props.sessions.map((session) => (
          <li key={session.id} className={session.id === props.current ? 'active' : ''}>
            <button
              type="button"
              className="session-name"
              title={session.concept}
              aria-current={session.id === props.current ? 'page' : undefined}
              onClick={() => props.onSelect(session.id)}
            >
              {session.concept}
            </button>
            <span className="row-actions">
              <button
                type="button"
                className="icon"
                aria-label={`${t('rename')} ${session.concept}`}
                title={t('rename')}
                onClick={() => {
                  const concept = prompt(t('renamePrompt'), session.concept);
                  if (concept?.trim()) void run(() => api.renameSession(session.id, concept.trim()));
                }}
              >
                ✎
              </button>
              <button
                type="button"
                className="icon danger"
                aria-label={`${t('delete')} ${session.concept}`}
                title={t('delete')}
                onClick={() => {
                  if (confirm(t('deleteConfirm', { name: session.concept })))
                    void run(() => api.deleteSession(session.id));
                }}
              >
                ✕
              </button>
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
