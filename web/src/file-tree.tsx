import { api, type FileEntry } from './api.ts';
import { useI18n } from './i18n.ts';

/**
 * The session's files (folders indented, global files marked as shared): open one, create a
 * file, rename or delete the session's own files. Files the session machinery owns
 * (`messages.json`, `memory.json`, `context-config.json`) and global files cannot be renamed
 * or deleted here (the server refuses too).
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
  const run = async (action: () => Promise<void>) => {
    try {
      await action();
    } catch (cause) {
      props.onError(cause instanceof Error ? cause.message : String(cause));
    }
  };
  const create = () => {
    const name = prompt(t('newFilePrompt'))?.trim();
    if (!name) return;
    void run(async () => {
      await api.writeFile(props.sessionId, name, name.endsWith('.json') ? '{}\n' : '', undefined);
      props.onOpen(name);
    });
  };
  return (
    <section className="panel files">
      <div className="panel-head">
        <h2>{t('files')}</h2>
        <button type="button" className="small" onClick={create}>
          + {t('newFile')}
        </button>
      </div>
      <ul className="file-tree">
        {props.files.map((file) => {
          const depth = file.path.split('/').length - 1;
          const name = file.path.split('/').at(-1) ?? file.path;
          const movable = !file.global && !RESERVED.includes(file.path);
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
                    <span className="file-name">{name}</span>
                    {file.global && <span className="tag">{t('global')}</span>}
                    <span className="size">{formatSize(file.size)}</span>
                  </button>
                  {movable && (
                    <span className="row-actions">
                      <button
                        type="button"
                        className="icon"
                        aria-label={t('renameFile', { name: file.path })}
                        title={t('renameFile', { name: file.path })}
                        onClick={() => {
                          const to = prompt(t('renameFilePrompt', { name: file.path }), file.path)?.trim();
                          if (to && to !== file.path)
                            void run(async () => {
                              await api.renameFile(props.sessionId, file.path, to);
                              props.onMoved(file.path, to);
                            });
                        }}
                      >
                        ✎
                      </button>
                      <button
                        type="button"
                        className="icon danger"
                        aria-label={t('deleteFile', { name: file.path })}
                        title={t('deleteFile', { name: file.path })}
                        onClick={() => {
                          if (confirm(t('deleteFileConfirm', { name: file.path })))
                            void run(async () => {
                              await api.deleteFile(props.sessionId, file.path);
                              props.onMoved(file.path, undefined);
                            });
                        }}
                      >
                        ✕
                      </button>
                    </span>
                  )}
                </div>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

const RESERVED = ['context-config.json', 'messages.json', 'memory.json'];

function formatSize(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}
