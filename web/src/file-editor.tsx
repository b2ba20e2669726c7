import { defaultHighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { EditorState } from '@codemirror/state';
import { drawSelection, EditorView, highlightActiveLine, keymap, lineNumbers } from '@codemirror/view';
import { useEffect, useRef, useState } from 'react';
import { ApiError, api } from './api.ts';
import { basicEditing } from './editor-commands.ts';
import { loadEditorLanguage } from './editor-language.ts';
import { errorText } from './error-text.ts';
import { useI18n } from './i18n.ts';

/**
 * CodeMirror 6 editor over one session file (Markdown, or JSON for `.json`; the language
 * loads with the file, see {@link loadEditorLanguage}). Saves with `If-Match`; a stale ETag
 * (someone else saved) shows the conflict and lets the user load theirs or overwrite. A file
 * ctxloom keeps (`readOnly`) is shown read-only, without a save button.
 */
export function FileEditor(props: {
  sessionId: string;
  path: string | undefined;
  /** 1-based line to show and select (a search hit); `at` changes on every jump. */
  line?: { line: number; at: number } | undefined;
  version: number;
  /** A file ctxloom keeps: shown, never edited or saved. */
  readOnly?: boolean;
  onSaved: () => void;
}) {
  const { t } = useI18n();
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | undefined>(undefined);
  const etag = useRef<string>('');
  const saveRef = useRef<() => void>(() => {});
  const [dirty, setDirtyState] = useState(false);
  const dirtyRef = useRef(false);
  const setDirty = (value: boolean) => {
    dirtyRef.current = value;
    setDirtyState(value);
  };
  const [status, setStatus] = useState<'idle' | 'saved' | 'conflict' | 'error'>('idle');
  const [message, setMessage] = useState('');
  const { sessionId, path } = props;

  const loads = useRef(0);
  const load = async () => {
    if (path === undefined || host.current === null) return;
    const ticket = ++loads.current;
    const [file, language] = await Promise.all([api.readFile(sessionId, path), loadEditorLanguage(path)]);
    // Another file opened while this one (or its language) was on the way: that one shows.
    if (ticket !== loads.current || host.current === null) return;
    etag.current = file.etag;
    view.current?.destroy();
    view.current = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: file.text,
        extensions: [
          lineNumbers(),
          highlightActiveLine(),
          drawSelection(),
          syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
          basicEditing(),
          language,
          EditorView.lineWrapping,
          EditorState.readOnly.of(props.readOnly === true),
          EditorView.editable.of(props.readOnly !== true),
          keymap.of([
            {
              key: 'Mod-s',
              preventDefault: true,
              run: () => {
                saveRef.current();
                return true;
              },
            },
          ]),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) {
              setDirty(true);
              setStatus('idle');
            }
          }),
          EditorView.contentAttributes.of({ 'aria-label': path }),
        ],
      }),
    });
    setDirty(false);
    setStatus('idle');
    reveal();
  };

  const reveal = () => {
    const target = props.line;
    const editor = view.current;
    if (target === undefined || editor === undefined) return;
    const line = editor.state.doc.line(Math.min(Math.max(1, target.line), editor.state.doc.lines));
    editor.dispatch({
      selection: { anchor: line.from, head: line.to },
      effects: EditorView.scrollIntoView(line.from, { y: 'center' }),
    });
    editor.focus();
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: jump when a search hit is opened again
  useEffect(reveal, [props.line?.at]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: reload when the file or session changes
  useEffect(() => {
    void load().catch((cause) => {
      setStatus('error');
      setMessage(errorText(cause, t));
    });
    return () => {
      view.current?.destroy();
      view.current = undefined;
    };
  }, [sessionId, path, props.readOnly]);

  // Files change under us (the agent's write_file, another tab): reload when there is no local edit.
  // biome-ignore lint/correctness/useExhaustiveDependencies: only the version bump matters
  useEffect(() => {
    if (!dirty && path !== undefined && view.current !== undefined) {
      api.readFile(sessionId, path).then(
        (file) => {
          if (file.etag !== etag.current && view.current && !dirtyRef.current) {
            etag.current = file.etag;
            view.current.dispatch({
              changes: { from: 0, to: view.current.state.doc.length, insert: file.text },
            });
            setDirty(false);
          }
        },
        () => undefined,
      );
    }
  }, [props.version]);

  const save = async (force = false) => {
    if (path === undefined || view.current === undefined || props.readOnly === true) return;
    try {
      let tag = etag.current;
      if (force) tag = (await api.readFile(sessionId, path)).etag;
      etag.current = await api.writeFile(sessionId, path, view.current.state.doc.toString(), tag);
      setDirty(false);
      setStatus('saved');
      props.onSaved();
    } catch (cause) {
      if (cause instanceof ApiError && cause.code === 'precondition-failed') {
        setStatus('conflict');
      } else {
        setStatus('error');
        setMessage(errorText(cause, t));
      }
    }
  };
  saveRef.current = () => void save();

  if (path === undefined) return <p className="empty">{t('noFile')}</p>;
  return (
    <div className="editor">
      <div className="editor-bar">
        <span className="editor-path">{path}</span>
        <span className="editor-state" aria-live="polite">
          {props.readOnly === true
            ? t('readOnly')
            : dirty
              ? t('unsaved')
              : status === 'saved'
                ? `✓ ${t('saved')}`
                : ''}
        </span>
        {props.readOnly !== true && (
          <button
            type="button"
            className="primary"
            onClick={() => void save()}
            disabled={!dirty}
            title={t('saveShortcut')}
          >
            {t('save')}
          </button>
        )}
      </div>
      {props.readOnly === true && (
        <p className="hint" data-testid="read-only-note">
          {t('readOnlyNote', { path })}
        </p>
      )}
      {status === 'conflict' && (
        <div className="conflict" role="alert">
          <span>⚠ {t('conflict')}</span>
          <button type="button" onClick={() => void load()}>
            {t('conflictReload')}
          </button>
          <button type="button" className="danger" onClick={() => void save(true)}>
            {t('conflictOverwrite')}
          </button>
        </div>
      )}
      {status === 'error' && (
        <div className="conflict" role="alert">
          {message}
        </div>
      )}
      <div className="cm-host" ref={host} />
    </div>
  );
}
