import type { DiffBlock } from '../../src/core/index.ts';
import type { CallDiffResponse } from './api.ts';
import { type MessageKey, useI18n } from './i18n.ts';
import {
  colorOf,
  describePlaceholderReason,
  describeReason,
  formatDelta,
  formatTokens,
} from './report-format.ts';

const GROUPS = [
  ['added', 'diffAdded'],
  ['removed', 'diffRemoved'],
  ['trimmed', 'diffTrimmed'],
  ['summarised', 'diffSummarised'],
] as const satisfies readonly (readonly [string, MessageKey])[];

/**
 * What changed from the previous logged call to this one (core's `diffReports`, from the
 * diff route): the token totals, the split a prompt cache could serve, tokens per layer, and
 * the blocks added, removed (with why), trimmed and summarised.
 */
export function CallDiffView(props: { response: CallDiffResponse; formatTime: (at: string) => string }) {
  const { t } = useI18n();
  const { previous, diff, layers } = props.response;
  if (previous === null || diff === null)
    return (
      <p className="hint" data-testid="diff-first">
        {t('diffFirst')}
      </p>
    );
  const { cache, totals } = diff;
  // What the layers do not hold — the tool definitions and the request overhead — so the
  // table's rows add up to the two calls' totals above it.
  const other = {
    previousTokens: totals.previousTokens - layers.reduce((sum, row) => sum + row.previousTokens, 0),
    currentTokens: totals.currentTokens - layers.reduce((sum, row) => sum + row.currentTokens, 0),
  };
  const share = (tokens: number) => (totals.currentTokens === 0 ? 0 : (tokens / totals.currentTokens) * 100);
  return (
    <div className="call-diff" data-testid="call-diff">
      <p className="hint">
        {t('diffAgainst', { at: props.formatTime(previous.at), step: previous.step + 1 })}
      </p>
      <div className="budget" data-testid="diff-total" data-delta={totals.deltaTokens}>
        <span className="budget-used">{formatDelta(totals.deltaTokens)}</span>
        <span className="budget-of">
          {t('diffTotal', {
            from: formatTokens(totals.previousTokens),
            to: formatTokens(totals.currentTokens),
          })}
        </span>
      </div>

      <h3>{t('cacheTitle')}</h3>
      <div
        className="cache-bar"
        role="img"
        aria-label={`${t('cacheCached', { n: formatTokens(cache.cachedTokens) })} · ${t('cacheUncached', { n: formatTokens(cache.uncachedTokens) })}`}
      >
        <span className="cache-cached" style={{ width: `${share(cache.cachedTokens)}%` }} />
        <span className="cache-uncached" style={{ width: `${share(cache.uncachedTokens)}%` }} />
      </div>
      <p className="cache-legend" data-testid="diff-cache" data-cached={cache.cachedTokens}>
        <span className="legend cached">{t('cacheCached', { n: formatTokens(cache.cachedTokens) })}</span>
        <span className="legend uncached">
          {t('cacheUncached', { n: formatTokens(cache.uncachedTokens) })}
        </span>
      </p>
      <p className="hint">
        {cache.cachedTokens > 0
          ? t('cacheHit', { m: cache.prefixMessages })
          : cache.prefixMessages > 0
            ? t('cacheShort', { m: cache.prefixMessages, min: formatTokens(props.response.minCacheTokens) })
            : t('cacheMiss')}
      </p>

      <h3>{t('diffLayers')}</h3>
      <table className="layers diff-layers">
        <thead>
          <tr>
            <th scope="col">{t('layer')}</th>
            <th scope="col" className="num">
              {t('diffBefore')}
            </th>
            <th scope="col" className="num">
              {t('diffNow')}
            </th>
            <th scope="col" className="num">
              {t('diffDelta')}
            </th>
          </tr>
        </thead>
        <tbody>
          {layers.map((row) => {
            const delta = row.currentTokens - row.previousTokens;
            return (
              <tr key={row.layer} data-layer={row.layer}>
                <th scope="row" className="diff-layer">
                  <span className="swatch" style={{ background: colorOf(row.layer) }} aria-hidden="true" />
                  {row.layer}
                </th>
                <td className="num">{formatTokens(row.previousTokens)}</td>
                <td className="num">{formatTokens(row.currentTokens)}</td>
                <td className={`num delta ${delta > 0 ? 'up' : delta < 0 ? 'down' : ''}`}>
                  {formatDelta(delta)}
                </td>
              </tr>
            );
          })}
          {(other.previousTokens !== 0 || other.currentTokens !== 0) && (
            <DeltaRow name={t('diffOtherRow')} row={other} data-row="other" />
          )}
        </tbody>
        <tfoot>
          <DeltaRow
            name={t('diffTotalRow')}
            row={{ previousTokens: totals.previousTokens, currentTokens: totals.currentTokens }}
            data-row="total"
          />
        </tfoot>
      </table>

      {GROUPS.map(([group, label]) => (
        <section key={group} className="diff-group" data-diff={group}>
          <h3>
            {t(label)} <span className={`count ${group}`}>{diff[group].length}</span>
          </h3>
          {diff[group].length === 0 ? (
            <p className="hint">{t('diffNone')}</p>
          ) : (
            <ul className="block-list diff-list">
              {diff[group].map((block) => (
                <DiffRow key={`${block.layer}:${block.id}`} block={block} group={group} />
              ))}
            </ul>
          )}
        </section>
      ))}
      {diff.placeholders.length > 0 && (
        <section className="diff-group" data-diff="placeholders">
          <h3>
            {t('diffPlaceholders')} <span className="count">{diff.placeholders.length}</span>
          </h3>
          <ul className="block-list diff-list">
            {diff.placeholders.map((placeholder) => (
              <li key={`${placeholder.blockId} ${placeholder.handle}`}>
                <code>{placeholder.blockId}</code> → <code>{placeholder.handle}</code>{' '}
                {formatTokens(placeholder.fromTokens)} → {formatTokens(placeholder.toTokens)} (
                {describePlaceholderReason(placeholder.reason, t)})
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}

/** A row of the per-layer table that is no layer: the tools and overhead, or the total. */
function DeltaRow(props: {
  name: string;
  row: { previousTokens: number; currentTokens: number };
  'data-row': string;
}) {
  const { previousTokens, currentTokens } = props.row;
  const delta = currentTokens - previousTokens;
  return (
    <tr data-row={props['data-row']} className={props['data-row'] === 'total' ? 'total-row' : undefined}>
      <th scope="row" className="diff-layer">
        {props.name}
      </th>
      <td className="num">{formatTokens(previousTokens)}</td>
      <td className="num">{formatTokens(currentTokens)}</td>
      <td className={`num delta ${delta > 0 ? 'up' : delta < 0 ? 'down' : ''}`}>{formatDelta(delta)}</td>
    </tr>
  );
}

function DiffRow(props: { block: DiffBlock; group: (typeof GROUPS)[number][0] }) {
  const { t } = useI18n();
  const { block, group } = props;
  const why =
    group === 'trimmed' && block.fromTokens !== undefined
      ? `${formatTokens(block.fromTokens)} → ${formatTokens(block.tokens)}`
      : block.reason !== undefined
        ? describeReason(block.reason, t)
        : group === 'removed'
          ? t('diffNotCollected')
          : undefined;
  return (
    <li data-block={block.id}>
      <span className="swatch" style={{ background: colorOf(block.layer) }} title={block.layer} />
      <code>{block.id}</code> {formatTokens(block.tokens)}
      {why !== undefined && <span className="diff-why">— {why}</span>}
      {block.preview !== '' && <span className="block-preview">{block.preview}</span>}
    </li>
  );
}
