import { useEffect, useRef, useState } from 'react';
import { ApiError, api, type BadReference, type PreviewResponse } from './api.ts';
import { describeBadReference } from './bad-references.tsx';
import { errorText } from './error-text.ts';
import { useI18n } from './i18n.ts';
import { Markdown } from './markdown.tsx';
import { MessageText } from './message-text.tsx';
import { removeSpans, spansOf } from './remove-references.ts';
import { ReportView } from './report-view.tsx';

/**
 * What the next model call receives: used / input budget / window / reserve, a stacked bar
 * by layer, per-layer rows (tokens, %, kept / trimmed / dropped with reasons) and each
 * layer's text. Refetched whenever blocks, the manifest, files or the draft change. A draft
 * with references that cannot be resolved keeps the preview up: it is compiled without them,
 * and each is named, with why, in the page's language.
 */
export function ContextPreview(props: {
  sessionId: string;
  version: number;
  draft: string;
  onChanged: () => void;
}) {
  const { t } = useI18n();
  const [preview, setPreview] = useState<PreviewResponse | undefined>();
  const [error, setError] = useState<unknown>();
  const [bad, setBad] = useState<BadReference[]>([]);
  const [note, setNote] = useState<string | undefined>();
  // A compression in flight: the button is disabled and busy until it answers. The ref also
  // holds off a second click that lands before the disabled button is rendered.
  const [compressing, setCompressing] = useState(false);
  const compressingRef = useRef(false);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `version` bumps mean "recompile"
  useEffect(() => {
    let live = true;
    const timer = setTimeout(
      () => {
        previewWithout(props.sessionId, props.draft.trim()).then(
          (result) => {
            if (!live) return;
            setPreview(result.preview);
            setBad(result.bad);
            setError(undefined);
          },
          (cause: unknown) => {
            if (!live) return;
            setError(cause);
            setBad(cause instanceof ApiError ? (cause.references ?? []) : []);
          },
        );
      },
      props.draft === '' ? 0 : 350,
    );
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [props.sessionId, props.version, props.draft]);

  const badList = bad.length > 0 && (
    <div className="bad-references preview-bad" role="status" data-testid="preview-bad-references">
      <p>{t('previewBadReferences', { n: bad.length })}</p>
      <ul>
        {bad.map((reference) => (
          <li
            key={`${reference.source}-${reference.offset ?? reference.index}`}
            data-reason={reference.reason}
          >
            <code className="bad-reference">{reference.raw}</code> {describeBadReference(reference, t)}
            {reference.source === 'manifest' && <span className="muted"> ({t('badReferenceManifest')})</span>}
          </li>
        ))}
      </ul>
    </div>
  );
  if (error !== undefined)
    return (
      <section className="panel preview" role="alert">
        {bad.length > 0 ? badList : `${t('previewUnavailable')} ${errorText(error, t)}`}
      </section>
    );
  if (!preview) return <section className="panel preview">{t('loading')}</section>;
  const { report } = preview;
  const compress = async () => {
    if (compressingRef.current) return;
    compressingRef.current = true;
    setCompressing(true);
    try {
      const result = await api.compress(props.sessionId);
      setNote(
        t('compressed', {
          n: result.summary?.newlyCovered ?? 0,
          t: result.summary?.tokens ?? 0,
        }),
      );
      props.onChanged();
    } catch (cause) {
      setNote(errorText(cause, t));
    } finally {
      compressingRef.current = false;
      setCompressing(false);
    }
  };

  return (
    <section className="panel preview" aria-labelledby="preview-title">
      <div className="panel-head">
        <h2 id="preview-title">{t('preview')}</h2>
        <button
          type="button"
          className="small"
          disabled={compressing}
          aria-busy={compressing}
          onClick={() => void compress()}
        >
          {compressing ? t('compressing') : t('compress')}
        </button>
      </div>
      <ReportView
        report={report}
        idPrefix="preview"
        layerText={(layer) => <LayerText layer={layer.layer} preview={preview} />}
        curationOf={(layer, blockId) => curationOf(preview, layer, blockId)}
      >
        {props.draft.trim() !== '' && <p className="hint">{t('draftNote')}</p>}
        {badList}
        {note && (
          <p className="hint" role="status">
            {note}
          </p>
        )}
      </ReportView>
      {preview.references.length > 0 && (
        <div className="refs">
          <h3>{t('references')}</h3>
          <ul>
            {preview.references.map((reference) => (
              <li key={`${reference.path}:${reference.startLine}`}>
                {reference.path}:{reference.startLine}–{reference.endLine}
                {reference.block ? ` #${reference.block}` : ''}
              </li>
            ))}
          </ul>
        </div>
      )}
      {preview.warnings.length > 0 && (
        <div className="warnings">
          <h3>{t('warnings')}</h3>
          <ul>
            {preview.warnings.map((warning) => (
              <li key={warning}>{warning}</li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}

/**
 * The preview of `draft`; when some of its own references cannot be resolved, the preview of
 * the draft without them, with the ones left out. Manifest references cannot be left out: those
 * (and any other error) reject.
 */
async function previewWithout(
  sessionId: string,
  draft: string,
): Promise<{ preview: PreviewResponse; bad: BadReference[] }> {
  try {
    return { preview: await api.preview(sessionId, draft), bad: [] };
  } catch (cause) {
    const references = cause instanceof ApiError ? cause.references : undefined;
    if (references === undefined || references.some((reference) => reference.source !== 'message'))
      throw cause;
    const spans = spansOf(draft, references);
    if (spans.length !== references.length) throw cause;
    return { preview: await api.preview(sessionId, removeSpans(draft, spans)), bad: references };
  }
}

/** A layer's text as the model receives it: the context block's Markdown, or the messages. */
function LayerText(props: { layer: string; preview: PreviewResponse }) {
  const { t } = useI18n();
  const context = props.preview.contexts[props.layer] ?? '';
  if (context !== '') return <Markdown text={context} />;
  const messages = props.preview.messages.filter((message) => message.metadata?.layer === props.layer);
  if (messages.length === 0) return <>{t('noText')}</>;
  return (
    <>
      {messages.map((message) => (
        <MessageText key={message.id} message={message} />
      ))}
    </>
  );
}

function curationOf(preview: PreviewResponse, layer: string, blockId: string): string | undefined {
  const message = preview.messages.find(
    (candidate) => candidate.metadata?.layer === layer && `${layer}:${candidate.id}` === blockId,
  );
  return (message?.metadata?.memory as { state?: string } | undefined)?.state;
}
