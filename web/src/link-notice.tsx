import { type Translate, useI18n } from './i18n.ts';

/** The session and call a link opened the page on (`?session=`, `?call=`). */
export interface PageLink {
  session: string | undefined;
  call: string | undefined;
}

/** The link in `search` (`location.search`). */
export function readLink(search: string): PageLink {
  const params = new URLSearchParams(search);
  // An empty value (`?call=`) names nothing.
  return { session: params.get('session') || undefined, call: params.get('call') || undefined };
}

/** An id from a URL as a notice quotes it: at most 40 characters (a pasted URL can hold anything). */
function quoted(id: string): string {
  return id.length > 40 ? `${id.slice(0, 39)}…` : id;
}

/** What the notice says when the link's session does not exist (and its call was not opened). */
export function missingSessionNotice(link: PageLink, t: Translate): string {
  const session = t('linkSessionMissing', { session: quoted(link.session ?? '') });
  return link.call === undefined
    ? session
    : `${session} ${t('linkCallNotOpened', { call: quoted(link.call) })}`;
}

/** What the notice says when the link's call is not in its session's log. */
export function missingCallNotice(call: string, t: Translate): string {
  return t('linkCallMissing', { call: quoted(call) });
}

/**
 * The notice of a link that named a session or call that is not there, under the header until
 * closed. The live region is always on the page, so a notice that arrives is announced.
 */
export function LinkNotice(props: { text: string | undefined; onClose: () => void }) {
  const { t } = useI18n();
  return (
    <div role="status" data-testid="link-notice">
      {props.text !== undefined && (
        <div className="notice-banner">
          <span className="notice-text">{props.text}</span>
          <button type="button" className="ghost" onClick={props.onClose} aria-label={t('close')}>
            ×
          </button>
        </div>
      )}
    </div>
  );
}
