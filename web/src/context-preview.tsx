import { useEffect, useState } from 'react';
import { api, type PreviewResponse } from './api.ts';
import { useI18n } from './i18n.ts';
import { Markdown } from './markdown.tsx';
import { MessageText } from './message-text.tsx';
import { ReportView } from './report-view.tsx';

/**
 * What the next model call receives: used / input budget / window / reserve, a stacked bar
 * by layer, per-layer rows (tokens, %, kept / trimmed / dropped with reasons) and each
 * layer's text. Refetched whenever blocks, the manifest, files or the draft change.
 */
export function ContextPreview(props: {
  sessionId: string;
  version: number;
  draft: string;
  onChanged: () => void;
}) {
  const { t } = useI18n();
  const [preview, setPreview] = useState<PreviewResponse | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [note, setNote] = useState<string | undefined>();

  // biome-ignore lint/correctness/useExhaustiveDependencies: `version` bumps mean "recompile"
  useEffect(() => {
    let live = true;
    const timer = setTimeout(
      () => {
        api.preview(props.sessionId, props.draft).then(
          (result) => {
            if (!live) return;
            setPreview(result);
            setError(undefined);
          },
          (cause) => live && setError(cause instanceof Error ? cause.message : String(cause)),
        );
      },
      props.draft === '' ? 0 : 350,
    );
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [props.sessionId, props.version, props.draft]);

  if (error)
    return (
      <section className="panel preview" role="alert">
        {error}
      </section>
    );
  if (!preview) return <section className="panel preview">{t('loading')}</section>;
  const { report } = preview;
  const compress = async () => {
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
      setNote(cause instanceof Error ? cause.message : String(cause));
    }
  };

  return (
    <section className="panel preview" aria-labelledby="preview-title">
      <div className="panel-head">
        <h2 id="preview-title">{t('preview')}</h2>
        <button type="button" className="small" onClick={() => void compress()}>
          {t('compress')}
        </button>
      </div>
      <ReportView
        report={report}
        idPrefix="preview"
        layerText={(layer) => <LayerText layer={layer.layer} preview={preview} />}
        curationOf={(layer, blockId) => curationOf(preview, layer, blockId)}
      >
        {props.draft.trim() !== '' && <p className="hint">{t('draftNote')}</p>}
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
