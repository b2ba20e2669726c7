import { useEffect, useState } from 'react';
import { describeReason } from '../../src/core/format-report.ts';
import type { LayerReport } from '../../src/core/index.ts';
import { messageText } from '../../src/core/message.ts';
import { api, type PreviewResponse } from './api.ts';
import { useI18n } from './i18n.ts';

const COLORS: Record<string, string> = {
  system: '#6366f1',
  framework__context: '#0ea5e9',
  knowledge__context: '#10b981',
  todo__context: '#f59e0b',
  retrieval__context: '#14b8a6',
  compression__context: '#a855f7',
  history: '#64748b',
  query: '#ef4444',
};
const colorOf = (layer: string) => COLORS[layer] ?? '#94a3b8';
const number = (value: number) => Math.round(value).toLocaleString('en-US');

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
  const [open, setOpen] = useState<Record<string, boolean>>({});
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
  const used = report.totalTokens;
  const compress = async () => {
    try {
      const result = await api.compress(props.sessionId);
      setNote(t('compressed', { n: result.coveredMessages, t: result.tokens }));
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
      <div className="budget" data-testid="preview-total" data-tokens={used}>
        <span className={`budget-used ${report.fits ? '' : 'over'}`}>{number(used)}</span>
        <span className="budget-of">
          / {number(report.inputBudget)} {t('inputBudget')}
        </span>
        <div className="budget-meta">
          {t('window')} {number(report.window)} · {t('reserve')} {number(report.outputReserve)} ·{' '}
          {report.counter} ({report.exact ? t('exact') : t('estimate')})
        </div>
      </div>
      <div className="stack" role="img" aria-label={`${number(used)} / ${number(report.window)}`}>
        {report.layers.map((layer) => (
          <span
            key={layer.layer}
            className="stack-part"
            title={`${layer.layer}: ${number(layer.tokens)}`}
            style={{ width: `${(layer.tokens / report.window) * 100}%`, background: colorOf(layer.layer) }}
          />
        ))}
        <span
          className="stack-reserve"
          style={{ width: `${(report.outputReserve / report.window) * 100}%` }}
          title={t('reserve')}
        />
      </div>
      {props.draft.trim() !== '' && <p className="hint">{t('draftNote')}</p>}
      {note && (
        <p className="hint" role="status">
          {note}
        </p>
      )}
      <table className="layers">
        <thead>
          <tr>
            <th scope="col">{t('layer')}</th>
            <th scope="col" className="num">
              {t('tokens')}
            </th>
            <th scope="col" className="num">
              {t('share')}
            </th>
            <th scope="col">
              {t('kept')} / {t('trimmed')} / {t('dropped')}
            </th>
          </tr>
        </thead>
        <tbody>
          {report.layers.map((layer) => (
            <LayerRows
              key={layer.layer}
              layer={layer}
              used={used}
              open={open[layer.layer] === true}
              onToggle={() => setOpen((state) => ({ ...state, [layer.layer]: !state[layer.layer] }))}
              text={layerText(preview, layer.layer)}
            />
          ))}
        </tbody>
      </table>
      {report.compaction.length > 0 && (
        <div className="compaction">
          <h3>{t('compaction')}</h3>
          <ul>
            {report.compaction.map((action) => (
              <li key={JSON.stringify(action)}>{describeAction(action)}</li>
            ))}
          </ul>
        </div>
      )}
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

function LayerRows(props: {
  layer: LayerReport;
  used: number;
  open: boolean;
  onToggle: () => void;
  text: string;
}) {
  const { t } = useI18n();
  const { layer } = props;
  const trimmed = layer.kept.filter((block) => block.trimmedFromTokens !== undefined).length;
  const id = `layer-${layer.layer}`;
  return (
    <>
      <tr className="layer-row" data-layer={layer.layer}>
        <th scope="row">
          <button
            type="button"
            className="layer-toggle"
            aria-expanded={props.open}
            aria-controls={id}
            onClick={props.onToggle}
          >
            <span className="swatch" style={{ background: colorOf(layer.layer) }} aria-hidden="true" />
            {layer.layer}
          </button>
        </th>
        <td className="num">{number(layer.tokens)}</td>
        <td className="num">{props.used === 0 ? 0 : ((layer.tokens / props.used) * 100).toFixed(1)}</td>
        <td>
          <span className="count kept">{layer.kept.length - trimmed}</span>
          <span className="count trimmed">{trimmed}</span>
          <span className="count dropped">{layer.dropped.length}</span>
        </td>
      </tr>
      {props.open && (
        <tr id={id} className="layer-detail">
          <td colSpan={4}>
            <ul className="block-list">
              {layer.kept.map((block) => (
                <li key={block.id}>
                  <span className="badge kept">
                    {block.trimmedFromTokens === undefined ? t('kept') : t('trimmed')}
                  </span>
                  <code>{block.id}</code> {number(block.tokens)}
                  {block.trimmedFromTokens !== undefined &&
                    ` (${t('fromTokens', { n: number(block.trimmedFromTokens) })})`}
                </li>
              ))}
              {layer.dropped.map((block) => (
                <li key={block.id}>
                  <span className="badge dropped">{t('dropped')}</span>
                  <code>{block.id}</code> {number(block.tokens)} — {describeReason(block.reason)}
                </li>
              ))}
            </ul>
            <pre className="layer-text">{props.text === '' ? t('noText') : props.text}</pre>
          </td>
        </tr>
      )}
    </>
  );
}

function layerText(preview: PreviewResponse, layer: string): string {
  const fromContexts = preview.contexts[layer];
  if (fromContexts !== undefined && fromContexts !== '') return fromContexts;
  return preview.messages
    .filter((message) => message.metadata?.layer === layer)
    .map((message) => `[${message.role}] ${messageText(message)}`)
    .join('\n\n');
}

function describeAction(action: PreviewResponse['report']['compaction'][number]): string {
  switch (action.type) {
    case 'trimmed':
      return `trimmed ${action.blockId}: ${number(action.fromTokens)} → ${number(action.toTokens)} (${action.boundary})`;
    case 'summarized':
      return `summarised ${action.messages} messages: ${number(action.fromTokens)} → ${number(action.summaryTokens)} (${action.summarizer})`;
    case 'omitted-notice':
      return `omitted ${action.messages} messages (${number(action.tokens)}-token notice)`;
    case 'retry':
      return `recompiled: exact count overshot by ${number(action.overshootTokens)}`;
    case 'placeholder':
      return `${action.toolName} output → artifact ${action.handle}: ${number(action.fromTokens)} → ${number(action.toTokens)} (${action.reason})`;
    case 'chunked':
      return `dropped ${action.messages} more messages to a chunk boundary (${number(action.tokens)})`;
    case 'summarizer-failed':
      return `summariser ${action.summarizer} failed: ${action.error}; used ${action.fallback}`;
  }
}
