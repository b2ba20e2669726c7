import {
  autocompletion,
  type Completion,
  type CompletionContext,
  type CompletionResult,
  completionStatus,
} from '@codemirror/autocomplete';
import { Compartment, EditorState, Prec } from '@codemirror/state';
import { EditorView, keymap, placeholder } from '@codemirror/view';
import { type RefObject, useEffect, useRef } from 'react';
import { api, type BlockNode, type FileEntry } from './api.ts';
import { badReferenceMarks, markedSpans, markReferences } from './bad-reference-marks.ts';
import { basicEditing } from './editor-commands.ts';
import { removeSpans, type TextSpan } from './remove-references.ts';

/** What the chat can do to its input from outside: put a refused message back, and take it out again. */
export interface ChatInputControl {
  /** Replaces the text and marks `spans` (the bad references) in it. */
  restore(text: string, spans: readonly (TextSpan & { raw: string })[]): void;
  /** The text without the marked references that still read as written. */
  textWithoutMarked(): string;
  /** Empties the input and gives it the focus. */
  clear(): void;
}

/**
 * The chat input (CodeMirror): Enter sends, Shift+Enter breaks the line, and typing `[`
 * completes references — `[file` → file names, `[file:` → line ranges of its sections,
 * `[file#` → block ids. A refused message can be put back with its bad references marked
 * (`control`).
 */
export function ChatInput(props: {
  sessionId: string;
  files: FileEntry[];
  label: string;
  placeholderText: string;
  sendLabel: string;
  /** Detail shown beside global files in the completion list. */
  sharedLabel: string;
  disabled: boolean;
  onChange: (text: string) => void;
  onSubmit: (text: string) => boolean;
  control?: RefObject<ChatInputControl | null>;
}) {
  const host = useRef<HTMLDivElement>(null);
  const viewRef = useRef<EditorView | undefined>(undefined);
  const labels = useRef(new Compartment());
  const latest = useRef(props);
  latest.current = props;
  const submit = (view: EditorView) => {
    // A completion list open, or a reference completion loading: Enter picks from it (after
    // CodeMirror's short interaction delay) and never sends a half-typed reference. Plain text
    // sends at once (the typing debounce also reads as "pending").
    const status = completionStatus(view.state);
    const head = view.state.selection.main.head;
    const before = view.state.sliceDoc(Math.max(0, head - 300), head);
    if (status === 'active' || (status === 'pending' && REFERENCE_BEFORE_CURSOR.test(before))) return true;
    const text = view.state.doc.toString().trim();
    if (text === '' || !latest.current.onSubmit(text)) return true;
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: '' } });
    return true;
  };
  const labelExtensions = () => [
    placeholder(latest.current.placeholderText),
    EditorView.contentAttributes.of({ 'aria-label': latest.current.label, 'data-testid': 'chat-input' }),
  ];

  // biome-ignore lint/correctness/useExhaustiveDependencies: the editor is created once
  useEffect(() => {
    if (host.current === null) return;
    const view = new EditorView({
      parent: host.current,
      state: EditorState.create({
        extensions: [
          EditorView.lineWrapping,
          labels.current.of(labelExtensions()),
          autocompletion({
            override: [(context) => completeReference(context, latest.current)],
            activateOnTyping: true,
          }),
          Prec.high(keymap.of([{ key: 'Enter', run: submit }])),
          basicEditing({ enter: false }),
          badReferenceMarks,
          EditorView.updateListener.of((update) => {
            if (update.docChanged) latest.current.onChange(update.state.doc.toString());
          }),
        ],
      }),
    });
    viewRef.current = view;
    if (props.control) {
      props.control.current = {
        restore: (text, spans) => {
          view.dispatch({
            changes: { from: 0, to: view.state.doc.length, insert: text },
            effects: markReferences.of(spans),
            selection: { anchor: text.length },
          });
          view.focus();
        },
        textWithoutMarked: () => removeSpans(view.state.doc.toString(), markedSpans(view.state)),
        clear: () => {
          view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: '' } });
          view.focus();
        },
      };
    }
    return () => view.destroy();
  }, []);

  // The language changed: swap the placeholder and label, keep the draft.
  // biome-ignore lint/correctness/useExhaustiveDependencies: labelExtensions reads the latest props
  useEffect(() => {
    viewRef.current?.dispatch({ effects: labels.current.reconfigure(labelExtensions()) });
  }, [props.label, props.placeholderText]);

  return (
    <>
      <div className="chat-input" ref={host} />
      <button
        type="button"
        className="primary send"
        disabled={props.disabled}
        onClick={() => {
          if (viewRef.current !== undefined) {
            submit(viewRef.current);
            viewRef.current.focus();
          }
        }}
      >
        {props.sendLabel}
      </button>
    </>
  );
}

const REFERENCE_BEFORE_CURSOR = /\[[^\]\n]*$/u;

/** Synchronous when there is nothing to complete, so plain typing never leaves a pending query. */
function completeReference(
  context: CompletionContext,
  props: { sessionId: string; files: FileEntry[]; sharedLabel: string },
): CompletionResult | null | Promise<CompletionResult | null> {
  const match = context.matchBefore(REFERENCE_BEFORE_CURSOR);
  if (match === null) return null;
  return completeMatch(match, props);
}

/**
 * Options come in document order (files by path, the call log's last; blocks and line ranges
 * as they appear in the file): `filter: false` keeps CodeMirror from re-sorting them by fuzzy
 * score, so the typed text filters them here (case-insensitive substring) and every keystroke
 * asks again.
 */
async function completeMatch(
  match: { from: number; text: string },
  props: { sessionId: string; files: FileEntry[]; sharedLabel: string },
): Promise<CompletionResult | null> {
  const inner = match.text.slice(1);
  const hash = inner.indexOf('#');
  const colon = inner.indexOf(':');
  if (hash < 0 && colon < 0) {
    const files = props.files
      .filter((file) => file.kind === 'file' && /\.(md|markdown|json|txt)$/u.test(file.path))
      .filter((file) => contains(file.path, inner));
    // The call log (a file per call: hundreds in a long session) follows the session's own
    // files: sorted by path it came first and filled the list's 100 options.
    const options: Completion[] = [
      ...files.filter((file) => file.reserved !== 'calls'),
      ...files.filter((file) => file.reserved === 'calls'),
    ].map((file) => ({
      label: file.path,
      type: 'file',
      ...(file.global ? { detail: props.sharedLabel } : {}),
    }));
    return { from: match.from + 1, options, filter: false };
  }
  const cut = hash >= 0 && (colon < 0 || hash < colon) ? hash : colon;
  const file = inner.slice(0, cut);
  const blocks = await blocksOf(props.sessionId, file);
  if (blocks === undefined) return null;
  const from = match.from + 1 + cut + 1;
  const typed = inner.slice(cut + 1);
  if (cut === hash) {
    return {
      from,
      filter: false,
      options: blocks
        .filter((block) => contains(block.id, typed))
        .map((block) => ({
          label: block.id,
          apply: `${block.id}]`,
          detail: `L${block.source.startLine}–${block.source.sectionEndLine}`,
          type: 'property',
        })),
    };
  }
  return {
    from,
    filter: false,
    options: blocks
      .filter((block) => contains(`${block.source.startLine}:${block.source.sectionEndLine}`, typed))
      .map((block) => ({
        label: `${block.source.startLine}:${block.source.sectionEndLine}`,
        apply: `${block.source.startLine}:${block.source.sectionEndLine}]`,
        detail: block.heading,
        type: 'constant',
      })),
  };
}

function contains(text: string, typed: string): boolean {
  return text.toLowerCase().includes(typed.toLowerCase());
}

const cache = new Map<string, { at: number; blocks: Promise<BlockNode[] | undefined> }>();

/** The flattened blocks of a file, cached for 10 s so completion answers while typing. */
function blocksOf(sessionId: string, file: string): Promise<BlockNode[] | undefined> {
  const key = `${sessionId}\u0000${file}`;
  const hit = cache.get(key);
  if (hit !== undefined && Date.now() - hit.at < 10_000) return hit.blocks;
  const blocks = api.blocks(sessionId, file).then(
    (result) => flatten(result.blocks),
    () => undefined,
  );
  cache.set(key, { at: Date.now(), blocks });
  return blocks;
}

function flatten(blocks: BlockNode[]): BlockNode[] {
  return blocks.flatMap((block) => [block, ...flatten(block.children)]);
}
