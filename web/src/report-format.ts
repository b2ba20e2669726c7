import type { CompactionAction, DroppedSummary, DropReason } from '../../src/core/index.ts';
import type { MessageKey, Translate } from './i18n.ts';

const COLORS: Record<string, string> = {
  system: '#6366f1',
  framework__context: '#0ea5e9',
  profile__context: '#06b6d4',
  knowledge__context: '#10b981',
  todo__context: '#f59e0b',
  experience__context: '#84cc16',
  retrieval__context: '#14b8a6',
  compression__context: '#a855f7',
  recall__context: '#ec4899',
  history: '#64748b',
  query: '#ef4444',
};

/** The colour of the tool definitions' row and bar segment. */
export const TOOLS_COLOR = '#78716c';

/** The colour of a layer in the stacked bar and its swatches. */
export const colorOf = (layer: string): string => COLORS[layer] ?? '#94a3b8';

/**
 * One formatter for every count: `Number#toLocaleString` makes one per call (12–45 µs in
 * Chromium 156, against 0.5 µs for a shared one).
 */
const TOKENS = new Intl.NumberFormat('en-US');

/** A token count as the UI prints it: rounded, with thousands separators. */
export const formatTokens = (value: number): string => TOKENS.format(Math.round(value));

/** A signed token delta: `+12`, `−3`, `±0`. */
export const formatDelta = (value: number): string =>
  value === 0 ? '±0' : `${value > 0 ? '+' : '−'}${formatTokens(Math.abs(value))}`;

/** One line per drop reason, in the UI language. */
export function describeReason(reason: DropReason, t: Translate): string {
  switch (reason.type) {
    case 'duplicate':
      return t('reasonDuplicate', { of: reason.of });
    case 'over-budget':
      return reason.recallTool === undefined
        ? t('reasonOverBudget', { n: formatTokens(reason.grantTokens) })
        : t('reasonStepOverBudget', { n: formatTokens(reason.grantTokens), tool: reason.recallTool });
    case 'history-window':
      return t('reasonHistoryWindow', { n: formatTokens(reason.maxMessages) });
    case 'pinned-over-budget':
      return t('reasonPinnedOverBudget', { n: formatTokens(reason.budgetTokens) });
    case 'share-disabled':
      return t('reasonShareDisabled');
    case 'summarized':
      return t('reasonSummarized', { into: reason.into });
    case 'recalled':
      return t('reasonRecalled', { into: reason.into });
    case 'recallable':
      return t('reasonRecallable', { tool: reason.tool });
  }
}

const BOUNDARIES: Partial<Record<string, MessageKey>> = {
  heading: 'boundaryHeading',
  paragraph: 'boundaryParagraph',
  sentence: 'boundarySentence',
  line: 'boundaryLine',
  character: 'boundaryCharacter',
};

/** Where a trimmed block was cut, in the UI language (an unknown boundary as written). */
function describeBoundary(boundary: string, t: Translate): string {
  const key = BOUNDARIES[boundary];
  return key === undefined ? boundary : t(key);
}

const PLACEHOLDER_REASONS = {
  oversized: 'placeholderOversized',
  'earlier-turn': 'placeholderEarlierTurn',
  'page-shrunk': 'placeholderPageShrunk',
  'no-room': 'placeholderNoRoom',
} as const satisfies Record<PlaceholderReason, MessageKey>;

type PlaceholderReason = Extract<CompactionAction, { type: 'placeholder' }>['reason'];

/** Why a tool output became a placeholder, in the UI language (an unknown reason as written). */
export function describePlaceholderReason(reason: string, t: Translate): string {
  const key = (PLACEHOLDER_REASONS as Partial<Record<string, MessageKey>>)[reason];
  return key === undefined ? reason : t(key);
}

const TRIGGERS = {
  'soft-limit': 'triggerSoftLimit',
  overflow: 'triggerOverflow',
  command: 'triggerCommand',
} as const;

/** One line per compaction action, in the UI language. */
export function describeAction(action: CompactionAction, t: Translate): string {
  switch (action.type) {
    case 'trimmed':
      return t('actionTrimmed', {
        id: action.blockId,
        from: formatTokens(action.fromTokens),
        to: formatTokens(action.toTokens),
        boundary: describeBoundary(action.boundary, t),
      });
    case 'summarized':
      return t('actionSummarized', {
        n: action.messages,
        from: formatTokens(action.fromTokens),
        to: formatTokens(action.summaryTokens),
        summarizer: action.summarizer,
      });
    case 'omitted-notice':
      return t('actionOmitted', { n: action.messages, tokens: formatTokens(action.tokens) });
    case 'retry':
      return t('actionRetry', { n: formatTokens(action.overshootTokens) });
    case 'placeholder':
      return t('actionPlaceholder', {
        tool: action.toolName,
        handle: action.handle,
        from: formatTokens(action.fromTokens),
        to: formatTokens(action.toTokens),
        reason: describePlaceholderReason(action.reason, t),
      });
    case 'chunked':
      return t('actionChunked', { n: action.messages, tokens: formatTokens(action.tokens) });
    case 'compacted': {
      const values = {
        n: action.messages,
        tokens: formatTokens(action.summaryTokens),
        summarizer: action.summarizer,
        trigger: t(TRIGGERS[action.trigger]),
      };
      // Records written before 2026-12-03 do not say how many messages the summary carries.
      return action.carried === undefined || action.covered === undefined
        ? t('actionCompacted', values)
        : t('actionCompactedCarried', { ...values, carried: action.carried, covered: action.covered });
    }
    case 'summarizer-failed':
      return t('actionSummarizerFailed', {
        summarizer: action.summarizer,
        error: action.error,
        fallback: action.fallback,
      });
  }
}

/**
 * A dropped entry's reason; for a run whose messages have other reasons too, with how many have
 * this one (`52 of them: recalled into recall__context`) — the run's count is all of them.
 */
export function describeRunReason(block: DroppedSummary, t: Translate): string {
  const reason = describeReason(block.reason, t);
  const run = block.run;
  if (run?.others === undefined || run.others.length === 0) return reason;
  let others = 0;
  for (const group of run.others) others += group.ids.length;
  return t('droppedRunOthers', { n: run.count - others, reason });
}
