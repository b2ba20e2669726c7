import { type EditorState, StateEffect, StateField } from '@codemirror/state';
import { Decoration, type DecorationSet, EditorView } from '@codemirror/view';
import type { TextSpan } from './remove-references.ts';

/** Marks the given spans of the chat input as bad references (replacing earlier marks). */
export const markReferences = StateEffect.define<readonly (TextSpan & { raw: string })[]>();

/**
 * The marked bad references of the chat input: they follow the user's edits, and a mark whose
 * text no longer reads as the reference that was refused (the user fixed it) goes away.
 */
export const badReferenceMarks = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(marks, transaction) {
    let next = marks.map(transaction.changes);
    for (const effect of transaction.effects) {
      if (!effect.is(markReferences)) continue;
      next = Decoration.set(
        effect.value
          .filter((span) => span.to > span.from && span.to <= transaction.state.doc.length)
          .map((span) =>
            Decoration.mark({
              class: 'cm-bad-reference',
              attributes: { 'data-bad-reference': span.raw },
              raw: span.raw,
            }).range(span.from, span.to),
          ),
        true,
      );
    }
    if (transaction.docChanged) {
      next = next.update({
        filter: (from, to, mark) => transaction.state.sliceDoc(from, to) === mark.spec.raw,
      });
    }
    return next;
  },
  provide: (field) => EditorView.decorations.from(field),
});

/** The spans still marked in `state`. */
export function markedSpans(state: EditorState): TextSpan[] {
  const spans: TextSpan[] = [];
  const marks = state.field(badReferenceMarks, false);
  marks?.between(0, state.doc.length, (from, to) => {
    spans.push({ from, to });
  });
  return spans;
}
