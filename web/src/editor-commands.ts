import { defaultKeymap, history, historyKeymap, insertNewline } from '@codemirror/commands';
import type { Extension } from '@codemirror/state';
import { keymap } from '@codemirror/view';

/**
 * CodeMirror's standard editing commands and undo history (`@codemirror/commands`), with
 * Shift+Enter inserting a line break. `enter: false` leaves Enter unbound so the chat input
 * can send on Enter.
 */
export function basicEditing(options: { enter?: boolean } = {}): Extension {
  const keys =
    options.enter === false ? defaultKeymap.filter((binding) => binding.key !== 'Enter') : defaultKeymap;
  return [history(), keymap.of([{ key: 'Shift-Enter', run: insertNewline }, ...keys, ...historyKeymap])];
}
