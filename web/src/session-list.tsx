import { api, type SessionRecord } from './api.ts';
import { useDialog } from './dialog.tsx';
import { errorText } from './error-text.ts';
import { useI18n } from './i18n.ts';

/** Sessions: pick, create, rename, delete (each asked in a dialog). */
export function SessionList(props: {
  sessions: SessionRecord[];
  current: string | undefined;
  onSelect: (id: string) => void;
  onChanged: () => Promise<void>;
  onError: (message: string) => void;
}) {
  const { t } = useI18n();
  const dialog = useDialog();
  const run = async (action: () => Promise<unknown>) => {
    try {
      await action();
      await props.onChanged();
    } catch (cause) {
      props.onError(errorText(cause, t));
    }
  };
  const create = async () => {
    const concept = await dialog.ask({
      title: t('newSession'),
      field: { label: t('newSessionPrompt') },
      confirm: t('create'),
    });
    if (concept)
      await run(async () => {
        const session = await api.createSession(concept);
        props.onSelect(session.id);
      });
  };
  const rename = async (session: SessionRecord) => {
    const concept = await dialog.ask({
      title: `${t('rename')} ${session.concept}`,
      field: { label: t('renamePrompt'), value: session.concept },
      confirm: t('rename'),
    });
    if (concept && concept !== session.concept) await run(() => api.renameSession(session.id, concept));
  };
  const remove = async (session: SessionRecord) => {
    const yes = await dialog.ask({
      title: t('deleteConfirm', { name: session.concept }),
      confirm: t('delete'),
      danger: true,
    });
    if (yes !== undefined) await run(() => api.deleteSession(session.id));
  };
  return (
    <section className="panel sessions">
      <div className="panel-head">
        <h2>{t('sessions')}</h2>
        <button type="button" className="small" onClick={() => void create()}>
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
                onClick={() => void rename(session)}
              >
                ✎
              </button>
              <button
                type="button"
                className="icon danger"
                aria-label={`${t('delete')} ${session.concept}`}
                title={t('delete')}
                onClick={() => void remove(session)}
              >
                ✕
              </button>
            </span>
          </li>
        ))}
      </ul>
      {dialog.element}
    </section>
  );
}
