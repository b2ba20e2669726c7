import { useEffect, useState } from 'react';
import type { DropReason, LayerReport } from '../../src/core/index.ts';
import { api, type PreviewResponse } from './api.ts';
import { type Translate, useI18n } from './i18n.ts';
import { Markdown } from './markdown.tsx';
import { MessageText } from './message-text.tsx';

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
              preview={preview}
            />
          ))}
        </tbody>
      </table>
      {report.compaction.length > 0 && (
        <div className="compaction">
          <h3>{t('compaction')}</h3>
          <ul>
            {report.compaction.map((action) => (
              <li key={JSON.stringify(action)}>{describeAction(action, t)}</li>
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
  preview: PreviewResponse;
}) {
  const { t } = useI18n();
  const { layer, preview } = props;
  const messages = preview.messages.filter((message) => message.metadata?.layer === layer.layer);
  const memoryOf = (blockId: string) =>
    (
      messages.find((message) => `${layer.layer}:${message.id}` === blockId)?.metadata?.memory as
        | { state?: string }
        | undefined
    )?.state;
  const context = preview.contexts[layer.layer] ?? '';
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
                  <KeptBadge memory={memoryOf(block.id)} trimmed={block.trimmedFromTokens !== undefined} />
                  <code>{block.id}</code> {number(block.tokens)}
                  {block.trimmedFromTokens !== undefined &&
                    ` (${t('fromTokens', { n: number(block.trimmedFromTokens) })})`}
                </li>
              ))}
              {layer.dropped.map((block) => (
                <li key={block.id}>
                  <span className="badge dropped">{t('dropped')}</span>
                  <code>{block.id}</code> {number(block.tokens)} — {describeReason(block.reason, t)}
                </li>
              ))}
            </ul>
            <div className="layer-text" data-testid="layer-text">
              {context !== '' ? (
                <Markdown text={context} />
              ) : messages.length > 0 ? (
                messages.map((message) => <MessageText key={message.id} message={message} />)
              ) : (
                t('noText')
              )}
            </div>
          </td>
        </tr>
      )}
    </>
  );
}

function KeptBadge(props: { memory: string | undefined; trimmed: boolean }) {
  const { t } = useI18n();
  if (props.memory !== undefined)
    return (
      <span className="badge muted">{props.memory === 'excluded' ? t('excluded') : t('dismissed')}</span>
    );
  return <span className="badge kept">{props.trimmed ? t('trimmed') : t('kept')}</span>;
}

/** One line per drop reason, in the UI language. */
export function describeReason(reason: DropReason, t: Translate): string {
  switch (reason.type) {
    case 'duplicate':
      return t('reasonDuplicate', { of: reason.of });
    case 'over-budget':
      return t('reasonOverBudget', { n: number(reason.grantTokens) });
    case 'pinned-over-budget':
      return t('reasonPinnedOverBudget', { n: number(reason.budgetTokens) });
    case 'share-disabled':
      return t('reasonShareDisabled');
    case 'summarized':
      return t('reasonSummarized', { into: reason.into });
  }
}

/** One line per compaction action, in the UI language. */
export function describeAction(
  action: PreviewResponse['report']['compaction'][number],
  t: Translate,
): string {
  switch (action.type) {
    case 'trimmed':
      return t('actionTrimmed', {
        id: action.blockId,
        from: number(action.fromTokens),
        to: number(action.toTokens),
        boundary: action.boundary,
      });
    case 'summarized':
      return t('actionSummarized', {
        n: action.messages,
        from: number(action.fromTokens),
        to: number(action.summaryTokens),
        summarizer: action.summarizer,
      });
    case 'omitted-notice':
      return t('actionOmitted', { n: action.messages, tokens: number(action.tokens) });
    case 'retry':
      return t('actionRetry', { n: number(action.overshootTokens) });
    case 'placeholder':
      return t('actionPlaceholder', {
        tool: action.toolName,
        handle: action.handle,
        from: number(action.fromTokens),
        to: number(action.toTokens),
        reason: action.reason,
      });
    case 'chunked':
      return t('actionChunked', { n: action.messages, tokens: number(action.tokens) });
    case 'summarizer-failed':
      return t('actionSummarizerFailed', {
        summarizer: action.summarizer,
        error: action.error,
        fallback: action.fallback,
      });
  }
}
