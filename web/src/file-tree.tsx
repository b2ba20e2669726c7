import { api, type FileEntry } from './api.ts';
import { useDialog } from './dialog.tsx';
import { errorText } from './error-text.ts';
import { useI18n } from './i18n.ts';

/**
 * Whether a file ctxloom keeps can be edited in the notebook: the manifest and the record are
 * written through the file routes (validated); the curation log, the compression state and
 * the call log are not.
 */
export function isReadOnly(file: FileEntry | undefined): boolean {
  return (
    file?.reserved !== undefined &&
    file.reserved !== 'context-config.json' &&
    file.reserved !== 'messages.json'
  );
}

/**
 * The session's files (folders indented, global files marked as shared): open one, create a
 * file, rename or delete the session's own files through dialogs. Files ctxloom keeps
 * (`reserved` in the listing) have no rename or delete; the curation log and the compression
 * state open read-only, and the call log is folded into one closed group, out of the tab
 * order until opened. The server refuses the same (`reserved-name`).
 */
export function FileTree(props: {
  sessionId: string;
  files: FileEntry[];
  current: string | undefined;
  onOpen: (path: string) => void;
  onMoved: (from: string, to: string | undefined) => void;
  onError: (message: string) => void;
}) {
  const { t } = useI18n();
  const dialog = useDialog();
  const run = async (action: () => Promise<void>) => {
    try {
      await action();
    } catch (cause) {
      props.onError(errorText(cause, t));
    }
  };
  const create = async () => {
    const name = await dialog.ask({
      title: t('newFile'),
      field: { label: t('newFilePrompt') },
      confirm: t('create'),
    });
    if (!name) return;
    await run(async () => {
      await api.writeFile(props.sessionId, name, name.endsWith('.json') ? '{}\n' : '', undefined);
      props.onOpen(name);
    });
  };
  const rename = async (file: FileEntry) => {
    const to = await dialog.ask({
      title: t('renameFile', { name: file.path }),
      field: { label: t('renameFilePrompt', { name: file.path }), value: file.path },
      confirm: t('rename'),
    });
    if (!to || to === file.path) return;
    await run(async () => {
      await api.renameFile(props.sessionId, file.path, to);
      props.onMoved(file.path, to);
    });
  };
  const remove = async (file: FileEntry) => {
    const yes = await dialog.ask({
      title: t('deleteFileConfirm', { name: file.path }),
      confirm: t('delete'),
      danger: true,
    });
    if (yes === undefined) return;
    await run(async () => {
      await api.deleteFile(props.sessionId, file.path);
      props.onMoved(file.path, undefined);
    });
  };
  const callLog = props.files.filter((file) => file.reserved === 'calls' && file.kind === 'file');
  const shown = props.files.filter((file) => file.reserved !== 'calls');

  const row = (file: FileEntry, depth: number) => {
    const name = file.path.split('/').at(-1) ?? file.path;
    const movable = !file.global && file.reserved === undefined;
    return (
      <li key={file.path} style={{ paddingLeft: `${depth * 14}px` }}>
        {file.kind === 'directory' ? (
          <span className="folder">▸ {name}/</span>
        ) : (
          <div className="file-row">
            <button
              type="button"
              className={`file ${file.path === props.current ? 'active' : ''}`}
              aria-current={file.path === props.current ? 'true' : undefined}
              onClick={() => props.onOpen(file.path)}
            >
              <span className="file-icon" aria-hidden="true">
                {file.path.endsWith('.json') ? '{}' : '¶'}
              </span>
              <span className="file-name" title={file.path}>
                {name}
              </span>
              {file.global && <span className="tag">{t('global')}</span>}
              {isReadOnly(file) && (
                <span className="readonly" role="img" aria-label={t('readOnly')} title={t('readOnly')}>
                  <svg viewBox="0 0 16 16" width="12" height="12" aria-hidden="true">
                    <path
                      fill="currentColor"
                      d="M5 7V5a3 3 0 0 1 6 0v2h1a1 1 0 0 1 1 1v6a1 1 0 0 1-1 1H4a1 1 0 0 1-1-1V8a1 1 0 0 1 1-1zm1.5 0h3V5a1.5 1.5 0 0 0-3 0z"
                    />
                  </svg>
                </span>
              )}
              <span className="size">{formatSize(file.size)}</span>
            </button>
            {movable && (
              <span className="row-actions">
                <button
                  type="button"
                  className="icon"
                  aria-label={t('renameFile', { name: file.path })}
                  title={t('renameFile', { name: file.path })}
                  onClick={() => void rename(file)}
                >
                  ✎
                </button>
                <button
                  type="button"
                  className="icon danger"
                  aria-label={t('deleteFile', { name: file.path })}
                  title={t('deleteFile', { name: file.path })}
                  onClick={() => void remove(file)}
                >
                  ✕
                </button>
              </span>
            )}
          </div>
        )}
      </li>
    );
  };

  return (
    <section className="panel files">
      <div className="panel-head">
        <h2>{t('files')}</h2>
        <button type="button" className="small" onClick={() => void create()}>
          + {t('newFile')}
        </button>
      </div>
      <ul className="file-tree">
        {shown.map((file) => row(file, file.path.split('/').length - 1))}
        {callLog.length > 0 && (
          <li>
            <details className="call-log" data-testid="call-log">
              <summary>{t('callLog', { n: callLog.length })}</summary>
              <ul className="call-log-files">{callLog.map((file) => row(file, 1))}</ul>
            </details>
          </li>
        )}
      </ul>
      {dialog.element}
    </section>
  );
}

function formatSize(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}
