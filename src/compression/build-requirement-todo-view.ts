import { CtxloomError, type TokenCounter } from '../core/index.ts';
import { fitLines, type LineGroup } from './fit-lines.ts';
import type { RequirementItem, RequirementTodoSnapshot } from './requirement-schema.ts';

/** Options of {@link buildRequirementTodoView}. */
export interface RequirementTodoViewOptions {
  /** Counter for the bound; use the target model's tokenizer. */
  counter: TokenCounter;
  /** Upper bound of the view in tokens. Range ≥ 0. */
  maxTokens: number;
  /** Newest anchors shown per requirement. Default 1, range ≥ 0. */
  maxEvidence?: number;
  /** Longest quote shown, in characters (longer ones end in `…`). Default 120, range ≥ 8. */
  maxQuoteChars?: number;
  /** Heading; default `Requirements (global)` or `Requirements (agent <id>)`. */
  title?: string;
}

/** The rendered view and what it left out. */
export interface RequirementTodoView {
  text: string;
  tokens: number;
  /** Ids of requirements in the view, in view order. */
  shownIds: string[];
  /** Ids of live requirements that did not fit (named in the last line when it fits). */
  omittedIds: string[];
}

const PRIORITY_RANK = { must: 0, should: 1, could: 2 } as const;

/**
 * The bounded view of a TODO snapshot that models see (the snapshot's `evidenceHistory` never
 * is). Open requirements come first by priority (must → should → could) then by age, then
 * done ones without evidence; cancelled ones are left out. Each requirement shows its newest
 * `maxEvidence` anchors when they fit: as many requirements as possible are shown as bare
 * lines first, then anchors are added in view order while the budget allows. A bounded last
 * line counts what was left out and names the first three.
 * @example buildRequirementTodoView(snapshot, { counter, maxTokens: 600, maxEvidence: 1 }).text
 */
export function buildRequirementTodoView(
  snapshot: RequirementTodoSnapshot,
  options: RequirementTodoViewOptions,
): RequirementTodoView {
  const maxEvidence = options.maxEvidence ?? 1;
  const maxQuoteChars = options.maxQuoteChars ?? 120;
  if (!(options.maxTokens >= 0) || !(maxEvidence >= 0) || !(maxQuoteChars >= 8)) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: 'maxTokens and maxEvidence must be ≥ 0 and maxQuoteChars ≥ 8',
      path: 'options',
    });
  }
  const open = snapshot.items
    .filter((item) => item.status === 'open')
    .sort((a, b) => PRIORITY_RANK[a.priority] - PRIORITY_RANK[b.priority]);
  const done = snapshot.items.filter((item) => item.status === 'done');
  const groups: LineGroup[] = [
    ...open.map((item) => {
      const line = itemLine(item);
      const evidence = (maxEvidence === 0 ? [] : item.evidence.slice(-maxEvidence)).map(
        (anchor) => `  evidence: turn ${anchor.turnIndex} "${clip(anchor.quote, maxQuoteChars)}"`,
      );
      return { key: item.id, lines: [line, ...evidence], fallback: [line] };
    }),
    ...done.map((item) => ({ key: item.id, lines: [`${itemLine(item)} (done)`] })),
  ];
  const title =
    options.title ??
    (snapshot.agentId === null ? 'Requirements (global)' : `Requirements (agent ${snapshot.agentId})`);
  const fitted = fitLines({
    header: [`## ${title} — ${open.length} open, revision ${snapshot.revision}`],
    groups,
    maxTokens: options.maxTokens,
    counter: options.counter,
    footer: omittedFooter,
    fallbackFirst: true,
  });
  return {
    text: fitted.text,
    tokens: fitted.tokens,
    shownIds: fitted.keptKeys,
    omittedIds: fitted.droppedKeys,
  };
}

/** Ids named in the footer; the rest are counted (all are in `omittedIds`). */
const FOOTER_IDS = 3;

/** The view's last line when requirements are left out: their count and the first few ids. */
export function omittedFooter(omittedIds: readonly string[]): string {
  const named = omittedIds.slice(0, FOOTER_IDS).join(', ');
  return `… ${omittedIds.length} more not shown: ${named}${omittedIds.length > FOOTER_IDS ? ', …' : ''}`;
}

function itemLine(item: RequirementItem): string {
  return `- ${item.id} [${item.priority} · ${item.type}] ${item.text.replace(/\s+/gu, ' ')}`;
}

function clip(text: string, maxChars: number): string {
  const flat = text.replace(/\s+/gu, ' ');
  return flat.length <= maxChars ? flat : `${flat.slice(0, maxChars - 1)}…`;
}
