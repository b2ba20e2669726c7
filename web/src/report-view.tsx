import { type ReactNode, useState } from 'react';
import type { CompileReport, LayerReport } from '../../src/core/index.ts';
import { useI18n } from './i18n.ts';
import {
  colorOf,
  describeAction,
  describeReason,
  describeRunReason,
  formatTokens,
  TOOLS_COLOR,
} from './report-format.ts';

/**
 * One compile report as the notebook shows it — the context preview's next call and any logged
 * call alike: used / input budget / window / reserve, a stacked bar by layer, per-layer rows
 * (tokens, %, kept / trimmed / dropped with reasons), a row for the tool definitions (each
 * tool on expand) and one for the request overhead — the rows add up to the total in the
 * table's foot — and what compaction did.
 */
export function ReportView(props: {
  report: CompileReport;
  /** Prefix of the element ids and of the total's test id (`<prefix>-total`). */
  idPrefix: string;
  /**
   * A layer's text as sent, when the caller has it (the preview). Without it each block shows
   * the first 120 characters the report keeps (a logged call).
   */
  layerText?: (layer: LayerReport) => ReactNode;
  /** Curation state of a kept block (`excluded`, `dismissed`), when known. */
  curationOf?: (layer: string, blockId: string) => string | undefined;
  /** Shown between the bar and the layer table (notes about this report). */
  children?: ReactNode;
}) {
  const { t } = useI18n();
  const [open, setOpen] = useState<Record<string, boolean>>({});
  const { report } = props;
  const used = report.totalTokens;
  const tools = report.tools;
  const share = (tokens: number) => (used === 0 ? 0 : ((tokens / used) * 100).toFixed(1));
  return (
    <>
      <div className="budget" data-testid={`${props.idPrefix}-total`} data-tokens={used}>
        <span className={`budget-used ${report.fits ? '' : 'over'}`}>{formatTokens(used)}</span>
        <span className="budget-of">
          / {formatTokens(report.inputBudget)} {t('inputBudget')}
        </span>
        <div className="budget-meta">
          {t('window')} {formatTokens(report.window)} · {t('reserve')} {formatTokens(report.outputReserve)} ·{' '}
          {report.counter} ({report.exact ? t('exact') : t('estimate')})
          {report.order === undefined ? null : (
            <>
              {' · '}
              <span data-testid={`${props.idPrefix}-order`} data-order={report.order}>
                {report.order === 'default' ? t('orderSeed') : t('orderCacheFriendly')}
              </span>
            </>
          )}
        </div>
      </div>
      <div className="stack" role="img" aria-label={`${formatTokens(used)} / ${formatTokens(report.window)}`}>
        {report.layers.map((layer) => (
          <span
            key={layer.layer}
            className="stack-part"
            title={`${layer.layer}: ${formatTokens(layer.tokens)}`}
            style={{ width: `${(layer.tokens / report.window) * 100}%`, background: colorOf(layer.layer) }}
          />
        ))}
        {tools !== undefined && tools.tokens > 0 && (
          <span
            className="stack-part"
            title={`${t('toolsRow', { n: tools.count })}: ${formatTokens(tools.tokens)}`}
            style={{ width: `${(tools.tokens / report.window) * 100}%`, background: TOOLS_COLOR }}
          />
        )}
        <span
          className="stack-reserve"
          style={{ width: `${(report.outputReserve / report.window) * 100}%` }}
          title={t('reserve')}
        />
      </div>
      {props.children}
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
              id={`${props.idPrefix}-layer-${layer.layer}`}
              layer={layer}
              used={used}
              open={open[layer.layer] === true}
              onToggle={() => setOpen((state) => ({ ...state, [layer.layer]: !state[layer.layer] }))}
              text={props.layerText}
              curationOf={props.curationOf}
            />
          ))}
          {tools !== undefined && tools.tokens > 0 && (
            <ToolRows
              id={`${props.idPrefix}-tools`}
              tools={tools}
              share={share}
              open={open['\u0000tools'] === true}
              onToggle={() => setOpen((state) => ({ ...state, '\u0000tools': !state['\u0000tools'] }))}
            />
          )}
          {report.overheadTokens > 0 && (
            <tr className="layer-row overhead-row" data-row="overhead">
              <th scope="row">
                <span className="row-name" title={t('overheadNote')}>
                  <span className="swatch" aria-hidden="true" />
                  {t('overheadRow')}
                </span>
              </th>
              <td className="num">{formatTokens(report.overheadTokens)}</td>
              <td className="num">{share(report.overheadTokens)}</td>
              <td />
            </tr>
          )}
        </tbody>
        <tfoot>
          <tr className="total-row" data-row="total">
            <th scope="row">{t('totalRow')}</th>
            <td className="num">{formatTokens(used)}</td>
            <td className="num">{used === 0 ? 0 : 100}</td>
            <td />
          </tr>
        </tfoot>
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
    </>
  );
}

function LayerRows(props: {
  id: string;
  layer: LayerReport;
  used: number;
  open: boolean;
  onToggle: () => void;
  text: ((layer: LayerReport) => ReactNode) | undefined;
  curationOf: ((layer: string, blockId: string) => string | undefined) | undefined;
}) {
  const { t } = useI18n();
  const { layer } = props;
  const trimmed = layer.kept.filter((block) => block.trimmedFromTokens !== undefined).length;
  const previews = props.text === undefined;
  return (
    <>
      <tr className="layer-row" data-layer={layer.layer}>
        <th scope="row">
          <button
            type="button"
            className="layer-toggle"
            aria-expanded={props.open}
            aria-controls={props.id}
            onClick={props.onToggle}
          >
            <span className="swatch" style={{ background: colorOf(layer.layer) }} aria-hidden="true" />
            <span className="layer-name">{breakable(layer.layer)}</span>
          </button>
        </th>
        <td className="num">{formatTokens(layer.tokens)}</td>
        <td className="num">{props.used === 0 ? 0 : ((layer.tokens / props.used) * 100).toFixed(1)}</td>
        <td>
          <span className="count kept">{layer.kept.length - trimmed}</span>
          <span className="count trimmed">{trimmed}</span>
          <span className="count dropped">
            {layer.dropped.reduce((count, block) => count + (block.run?.count ?? 1), 0)}
          </span>
        </td>
      </tr>
      {props.open && (
        <tr id={props.id} className="layer-detail">
          <td colSpan={4}>
            <ul className="block-list">
              {layer.kept.map((block) => (
                <li key={block.id}>
                  <KeptBadge
                    curation={props.curationOf?.(layer.layer, block.id)}
                    trimmed={block.trimmedFromTokens !== undefined}
                  />
                  <code>{block.id}</code> {formatTokens(block.tokens)}
                  {block.trimmedFromTokens !== undefined &&
                    ` (${t('fromTokens', { n: formatTokens(block.trimmedFromTokens) })})`}
                  {previews && block.preview !== '' && <span className="block-preview">{block.preview}</span>}
                </li>
              ))}
              {layer.dropped.map((block) => (
                <li key={block.id}>
                  <span className="badge dropped">{t('dropped')}</span>
                  {block.run !== undefined && `${t('droppedRun', { n: block.run.count })} `}
                  <code>{block.id}</code> {formatTokens(block.tokens)} — {describeRunReason(block, t)}
                  {block.run?.others?.map((group) => (
                    <span
                      key={JSON.stringify(group.reason)}
                      className="run-others"
                      title={group.ids.join(', ')}
                    >
                      {t('droppedRunOthers', {
                        n: group.ids.length,
                        reason: describeReason(group.reason, t),
                      })}
                    </span>
                  ))}
                  {previews && block.preview !== '' && <span className="block-preview">{block.preview}</span>}
                </li>
              ))}
            </ul>
            {props.text === undefined ? (
              <p className="hint">{t('previewsOnly')}</p>
            ) : (
              <div className="layer-text" data-testid="layer-text">
                {props.text(layer)}
              </div>
            )}
          </td>
        </tr>
      )}
    </>
  );
}

/** The tool definitions sent with the call: one row, each tool with its tokens on expand. */
function ToolRows(props: {
  id: string;
  tools: NonNullable<CompileReport['tools']>;
  share: (tokens: number) => string | number;
  open: boolean;
  onToggle: () => void;
}) {
  const { t } = useI18n();
  const { tools } = props;
  const definitions = tools.definitions ?? tools.names.map((name) => ({ name, tokens: undefined }));
  return (
    <>
      <tr className="layer-row tools-row" data-row="tools">
        <th scope="row">
          <button
            type="button"
            className="layer-toggle"
            aria-expanded={props.open}
            aria-controls={props.id}
            onClick={props.onToggle}
          >
            <span className="swatch" style={{ background: TOOLS_COLOR }} aria-hidden="true" />
            {t('toolsRow', { n: tools.count })}
          </button>
        </th>
        <td className="num">{formatTokens(tools.tokens)}</td>
        <td className="num">{props.share(tools.tokens)}</td>
        <td>
          <span className="count kept">{tools.count}</span>
        </td>
      </tr>
      {props.open && (
        <tr id={props.id} className="layer-detail">
          <td colSpan={4}>
            <p className="hint">{t('toolsNote')}</p>
            <ul className="block-list" data-testid="tool-list">
              {definitions.map((tool) => (
                <li key={tool.name} data-tool={tool.name}>
                  <code>{tool.name}</code> {tool.tokens === undefined ? '' : formatTokens(tool.tokens)}
                </li>
              ))}
            </ul>
          </td>
        </tr>
      )}
    </>
  );
}

/** A layer name that may wrap before its `__context` suffix instead of being clipped. */
function breakable(name: string): ReactNode {
  const at = name.indexOf('__');
  if (at <= 0) return name;
  return (
    <>
      {name.slice(0, at)}
      <wbr />
      {name.slice(at)}
    </>
  );
}

function KeptBadge(props: { curation: string | undefined; trimmed: boolean }) {
  const { t } = useI18n();
  if (props.curation !== undefined)
    return (
      <span className="badge muted">{props.curation === 'excluded' ? t('excluded') : t('dismissed')}</span>
    );
  return <span className="badge kept">{props.trimmed ? t('trimmed') : t('kept')}</span>;
}
