import type { FileEntry } from './api.ts';
import { useI18n } from './i18n.ts';

/** The session's files (folders indented), global files marked as shared. */
export function FileTree(props: {
  files: FileEntry[];
  current: string | undefined;
  onOpen: (path: string) => void;
}) {
  const { t } = useI18n();
  return (
    <section className="panel files">
      <div className="panel-head">
        <h2>{t('files')}</h2>
      </div>
      <ul className="file-tree">
        {props.files.map((file) => {
          const depth = file.path.split('/').length - 1;
          const name = file.path.split('/').at(-1);
          return (
            <li key={file.path} style={{ paddingLeft: `${depth * 14}px` }}>
              {file.kind === 'directory' ? (
                <span className="folder">▸ {name}/</span>
              ) : (
                <button
                  type="button"
                  className={`file ${file.path === props.current ? 'active' : ''}`}
                  aria-current={file.path === props.current ? 'true' : undefined}
                  onClick={() => props.onOpen(file.path)}
                >
                  <span className="file-icon" aria-hidden="true">
                    {file.path.endsWith('.json') ? '{}' : '¶'}
                  </span>
                  {name}
                  {file.global && <span className="tag">{t('global')}</span>}
                  <span className="size">{formatSize(file.size)}</span>
                </button>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

function formatSize(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}
