import type { BadReference } from './api.ts';
import { type Translate, useI18n } from './i18n.ts';

/**
 * The references a message was refused for, under the chat input: each as written, with why
 * (and where, for the manifest's), plus "send without them" when the message has any.
 */
export function BadReferences(props: {
  references: BadReference[];
  disabled: boolean;
  onSendWithout: () => void;
  onClose: () => void;
}) {
  const { t } = useI18n();
  const inMessage = props.references.some((reference) => reference.source === 'message');
  return (
    <div className="bad-references" role="alert" data-testid="bad-references">
      <p>{t('badReferencesTitle', { n: props.references.length })}</p>
      <ul>
        {props.references.map((reference) => (
          <li
            key={`${reference.source}-${reference.offset ?? reference.index}`}
            data-reason={reference.reason}
          >
            <code>{reference.raw}</code> {describeBadReference(reference, t)}
            {reference.source === 'manifest' && <span className="muted"> ({t('badReferenceManifest')})</span>}
          </li>
        ))}
      </ul>
      <div className="bad-reference-actions">
        {inMessage && (
          <button type="button" className="primary" disabled={props.disabled} onClick={props.onSendWithout}>
            {t('sendWithoutThem')}
          </button>
        )}
        <button type="button" className="ghost" onClick={props.onClose}>
          {t('keepEditing')}
        </button>
      </div>
    </div>
  );
}

/** Why a reference cannot be resolved, in the UI's language. */
export function describeBadReference(reference: BadReference, t: Translate): string {
  // The numbers as written (one past the safe integers arrives as the largest safe one), as
  // the server's message shows them: up to 40 digits.
  const written = /:(\d+)(?::(\d+))?\]?$/u.exec(reference.raw);
  const digits = (value: string | undefined) =>
    value === undefined || value.length <= 40 ? value : `${value.slice(0, 39)}…`;
  const values = {
    path: reference.path,
    start: digits(written?.[1]) ?? reference.startLine ?? '',
    end: digits(written?.[2] ?? written?.[1]) ?? reference.endLine ?? '',
    count: reference.lineCount ?? '',
    block: reference.block ?? '',
    closest: reference.closestBlock ?? '',
  };
  switch (reference.reason) {
    case 'missing-file':
      return t('badMissingFile', values);
    case 'outside-session':
      return t('badOutsideSession', values);
    case 'lines-out-of-range':
      return t('badLinesOutOfRange', values);
    case 'empty-range':
      return t('badEmptyRange', values);
    case 'missing-block':
      return t(reference.closestBlock === undefined ? 'badMissingBlock' : 'badMissingBlockClosest', values);
    default:
      return t('badUnreadable', values);
  }
}
