import type { EditorState, Extension } from '@codemirror/state';
import { EditorView, keymap } from '@codemirror/view';

/**
 * Minimal editing commands for CodeMirror without `@codemirror/commands` (not installed):
 * Enter / Shift+Enter insert a line break, Mod-z / Mod-Shift-z (Mod-y) undo and redo over
 * snapshots of the immutable editor state taken at pauses in typing.
 */
export function basicEditing(options: { enter?: boolean } = {}): Extension {
  const undo: EditorState[] = [];
  const redo: EditorState[] = [];
  let lastSnapshot = 0;
  let restoring = false;
  const newline = (view: EditorView) => {
    view.dispatch(view.state.replaceSelection('\n'), { scrollIntoView: true });
    return true;
  };
  const restore = (from: EditorState[], to: EditorState[]) => (view: EditorView) => {
    const previous = from.pop();
    if (previous === undefined) return false;
    to.push(view.state);
    restoring = true;
    view.setState(previous);
    restoring = false;
    return true;
  };
  return [
    keymap.of([
      ...(options.enter === false ? [] : [{ key: 'Enter', run: newline }]),
      { key: 'Shift-Enter', run: newline },
      { key: 'Mod-z', run: restore(undo, redo), preventDefault: true },
      { key: 'Mod-Shift-z', run: restore(redo, undo), preventDefault: true },
      { key: 'Mod-y', run: restore(redo, undo), preventDefault: true },
    ]),
    EditorView.updateListener.of((update) => {
      if (!update.docChanged || restoring) return;
      const now = Date.now();
      if (now - lastSnapshot > 600) {
        undo.push(update.startState);
        if (undo.length > 200) undo.shift();
        redo.length = 0;
      }
      lastSnapshot = now;
    }),
  ];
}
