import {
  type FormEvent,
  type KeyboardEvent,
  type ReactElement,
  useCallback,
  useEffect,
  useRef,
  useState,
} from 'react';
import { useI18n } from './i18n.ts';

/** What a {@link useDialog} dialog asks. */
export interface DialogRequest {
  title: string;
  /** A text field with this label and starting value; without it the dialog only confirms. */
  field?: { label: string; value?: string };
  /** Label of the confirming button. */
  confirm: string;
  /** Styles the confirming button as destructive (delete). */
  danger?: boolean;
}

type Pending = DialogRequest & { resolve: (value: string | undefined) => void };

/**
 * Modal dialogs in place of `prompt()`/`confirm()`: a native `<dialog>` opened with
 * `showModal()` (the page behind is inert), Tab and Shift+Tab kept inside it, Escape or
 * Cancel closing it, focus back where it was. `ask` resolves to the field's text (the empty
 * string for a confirmation) or `undefined` when cancelled; render `element` once.
 */
export function useDialog(): {
  ask: (request: DialogRequest) => Promise<string | undefined>;
  element: ReactElement | null;
} {
  const [pending, setPending] = useState<Pending | undefined>();
  const ask = useCallback(
    (request: DialogRequest) =>
      new Promise<string | undefined>((resolve) => setPending({ ...request, resolve })),
    [],
  );
  const element =
    pending === undefined ? null : (
      <DialogView
        key={pending.title}
        request={pending}
        onDone={(value) => {
          setPending(undefined);
          pending.resolve(value);
        }}
      />
    );
  return { ask, element };
}

function DialogView(props: { request: Pending; onDone: (value: string | undefined) => void }) {
  const { t } = useI18n();
  const ref = useRef<HTMLDialogElement>(null);
  const [value, setValue] = useState(props.request.field?.value ?? '');
  const { request } = props;
  useEffect(() => {
    const dialog = ref.current;
    const before = document.activeElement as HTMLElement | null;
    dialog?.showModal();
    const input = dialog?.querySelector<HTMLInputElement>('input');
    input?.select();
    return () => {
      if (dialog?.open) dialog.close();
      before?.focus();
    };
  }, []);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (request.field !== undefined && value.trim() === '') return;
    props.onDone(request.field === undefined ? '' : value.trim());
  };
  // The page behind is inert, but Tab would still leave for the browser's own controls.
  const trap = (event: KeyboardEvent<HTMLDialogElement>) => {
    if (event.key !== 'Tab') return;
    const focusable = [...event.currentTarget.querySelectorAll<HTMLElement>('input, button:not([disabled])')];
    const first = focusable[0];
    const last = focusable.at(-1);
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last?.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first?.focus();
    }
  };
  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby="dialog-title"
      onKeyDown={trap}
      onCancel={(event) => {
        event.preventDefault();
        props.onDone(undefined);
      }}
    >
      <form method="dialog" onSubmit={submit}>
        <h2 id="dialog-title">{request.title}</h2>
        {request.field !== undefined && (
          <label className="dialog-field">
            <span>{request.field.label}</span>
            <input value={value} onChange={(event) => setValue(event.target.value)} />
          </label>
        )}
        <div className="dialog-actions">
          <button type="button" className="ghost" onClick={() => props.onDone(undefined)}>
            {t('cancel')}
          </button>
          <button
            type="submit"
            className={request.danger === true ? 'danger' : 'primary'}
            disabled={request.field !== undefined && value.trim() === ''}
          >
            {request.confirm}
          </button>
        </div>
      </form>
    </dialog>
  );
}
