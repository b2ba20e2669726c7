import { type CompileReport, type DroppedSummary, droppedByReason, droppedCount } from './report.ts';
import type { DropReason } from './select.ts';

/** Options of {@link formatReport}. */
export interface FormatReportOptions {
  /** ANSI colours (use when writing to a TTY). Default false. */
  color?: boolean;
  /** Width of the bars in characters. Default 24. */
  barWidth?: number;
  /** List each dropped block, not just counts by reason. Default false. */
  verbose?: boolean;
}

/** How each composition order reads in the report. */
const ORDER_TEXT = {
  'cache-friendly': 'cache-friendly (volatile layers after the history)',
  default: "seed 000's (every context layer before the history)",
} as const;

const ANSI = {
  dim: '\u001b[2m',
  red: '\u001b[31m',
  green: '\u001b[32m',
  yellow: '\u001b[33m',
  cyan: '\u001b[36m',
  reset: '\u001b[0m',
};

/**
 * Renders a compile report as a text table for terminals: a header with the window, the
 * output reserve and the exact total, then one row per layer with tokens, share of the
 * input budget, kept / trimmed / dropped counts and a bar, a row for the tool definitions
 * (each tool listed with `verbose`) and one for the request overhead — the rows add up to
 * the total, printed last — then drop reasons and compaction actions.
 */
export function formatReport(report: CompileReport, options: FormatReportOptions = {}): string {
  const paint = (code: keyof typeof ANSI, text: string) =>
    options.color === true ? `${ANSI[code]}${text}${ANSI.reset}` : text;
  const width = options.barWidth ?? 24;
  const number = (value: number) => value.toLocaleString('en-US');
  const lines: string[] = [];
  const used = report.totalTokens / Math.max(1, report.inputBudget);
  lines.push(
    `${report.counter}${report.exact ? '' : ' (estimate)'} · window ${number(report.window)} · output reserve ${number(report.outputReserve)} · input budget ${number(report.inputBudget)}`,
  );
  const status = report.fits
    ? paint('green', 'fits')
    : paint('red', `over by ${number(report.overflowTokens)}`);
  lines.push(
    `used ${number(report.totalTokens)} / ${number(report.inputBudget)} (${percent(used)}) ${bar(used, width)} ${status}`,
  );
  if (report.order !== undefined) lines.push(paint('dim', `order ${ORDER_TEXT[report.order]}`));
  lines.push('');
  const tools = report.tools;
  const toolsName = tools === undefined ? '' : `tools (${tools.count})`;
  const nameWidth = Math.max(8, toolsName.length, ...report.layers.map((layer) => layer.layer.length));
  lines.push(
    paint(
      'dim',
      `${'layer'.padEnd(nameWidth)}  ${'tokens'.padStart(8)}  ${'%'.padStart(6)}  kept  trim  drop`,
    ),
  );
  const row = (name: string, tokens: number, counts: string) => {
    const share = tokens / Math.max(1, report.inputBudget);
    return `${name.padEnd(nameWidth)}  ${number(tokens).padStart(8)}  ${percent(share).padStart(6)}  ${counts}  ${paint('cyan', bar(share, width))}`;
  };
  for (const layer of report.layers) {
    const trimmed = layer.kept.filter((block) => block.trimmedFromTokens !== undefined).length;
    const dropped = droppedCount(layer);
    lines.push(
      row(
        layer.layer,
        layer.tokens,
        `${String(layer.kept.length).padStart(4)}  ${String(trimmed).padStart(4)}  ${dropped > 0 ? paint('yellow', String(dropped).padStart(4)) : '   0'}`,
      ),
    );
  }
  // Every token of `used` sits in exactly one row: the layers, the tool definitions, the overhead.
  if (tools !== undefined && tools.tokens > 0) {
    lines.push(row(toolsName, tools.tokens, `${String(tools.count).padStart(4)}     0     0`));
    if (options.verbose === true)
      for (const tool of tools.definitions ?? [])
        lines.push(paint('dim', `  - ${tool.name} (${number(tool.tokens)} tok)`));
  }
  if (report.overheadTokens > 0) {
    lines.push(
      paint('dim', `${'(request overhead)'.padEnd(nameWidth)}  ${number(report.overheadTokens).padStart(8)}`),
    );
  }
  lines.push(paint('dim', `${'total'.padEnd(nameWidth)}  ${number(report.totalTokens).padStart(8)}`));
  const reasons = new Map<string, { count: number; tokens: number }>();
  for (const layer of report.layers) {
    if (options.verbose === true)
      for (const block of layer.dropped)
        lines.push(
          paint(
            'dim',
            `  - ${describeDropped(block)} ${mainNote(block)}${describeReason(block.reason)}${othersNote(block)}`,
          ),
        );
    for (const tally of droppedByReason(layer)) {
      const key = `${layer.layer}: ${describeReason(tally.reason)}`;
      const entry = reasons.get(key) ?? { count: 0, tokens: 0 };
      entry.count += tally.count;
      entry.tokens += tally.tokens;
      reasons.set(key, entry);
    }
  }
  if (reasons.size > 0) {
    lines.push('', 'dropped:');
    for (const [key, entry] of reasons)
      lines.push(`  ${entry.count} × ${key} — ${number(entry.tokens)} tokens`);
  }
  if (report.compaction.length > 0) {
    lines.push('', 'compaction:');
    for (const action of report.compaction) lines.push(`  ${describeAction(action)}`);
  }
  const failed = report.sources.filter(
    (source) => source.error !== undefined || source.skipped !== undefined,
  );
  if (failed.length > 0) {
    lines.push('', 'sources:');
    for (const source of failed) {
      lines.push(
        `  ${source.name}: ${source.error !== undefined ? paint('red', `failed — ${source.error}`) : 'skipped (share disabled)'}`,
      );
    }
  }
  return lines.join('\n');
}

/** A dropped entry's id and tokens: `m7 (12 tok)`, or a run's `40 messages m1…m40 (480 tok)`. */
function describeDropped(block: DroppedSummary): string {
  const tokens = `(${block.tokens.toLocaleString('en-US')} tok)`;
  return block.run === undefined
    ? `${block.id} ${tokens}`
    : `${block.run.count} messages ${block.id} ${tokens}`;
}

/**
 * How many of a run's messages have its own reason, when some have others (`52 of them `): the
 * run's count is all of them, so the reason alone would read as every message's.
 */
function mainNote(block: DroppedSummary): string {
  const run = block.run;
  if (run?.others === undefined || run.others.length === 0) return '';
  let others = 0;
  for (const group of run.others) others += group.ids.length;
  return `${run.count - others} of them `;
}

/** What a run says of its messages of other reasons: `; 3 of them recalled into recall__context (m4, m9, m30)`. */
function othersNote(block: DroppedSummary): string {
  let note = '';
  for (const group of block.run?.others ?? [])
    note += `; ${group.ids.length} of them ${describeReason(group.reason)} (${group.ids.join(', ')})`;
  return note;
}

/** One-line description of a drop reason. */
export function describeReason(reason: DropReason): string {
  switch (reason.type) {
    case 'duplicate':
      return reason.messageId === undefined
        ? `duplicate of ${reason.of} (same content)`
        : `duplicate of ${reason.of} (same message ${reason.messageId})`;
    case 'over-budget':
      return `over budget (layer grant ${Math.floor(reason.grantTokens).toLocaleString('en-US')})${
        reason.recallTool === undefined ? '' : `, recallable with ${reason.recallTool}`
      }`;
    case 'history-window':
      return `outside the history window (last ${reason.maxMessages.toLocaleString('en-US')} messages)`;
    case 'pinned-over-budget':
      return `pinned blocks exceed the budget (${Math.floor(reason.budgetTokens).toLocaleString('en-US')})`;
    case 'share-disabled':
      return 'shared context disabled';
    case 'summarized':
      return `summarised into ${reason.into}`;
    case 'recalled':
      return `recalled into ${reason.into}`;
    case 'recallable':
      return `behind the cut, recallable with ${reason.tool}`;
  }
}

function describeAction(action: CompileReport['compaction'][number]): string {
  switch (action.type) {
    case 'trimmed':
      return `trimmed ${action.blockId} ${action.fromTokens} → ${action.toTokens} tokens at a ${action.boundary} boundary`;
    case 'summarized':
      return `summarised ${action.messages} message(s) (${action.fromTokens} tokens) into ${action.summaryTokens} tokens with ${action.summarizer}`;
    case 'omitted-notice':
      return `omitted ${action.messages} message(s); notice of ${action.tokens} tokens${action.errors > 0 ? `, ${action.errors} tool error(s) listed` : ''}`;
    case 'retry':
      return `recompiled after the exact count overshot by ${action.overshootTokens} tokens`;
    case 'placeholder':
      return `kept ${action.toolName} output of ${action.blockId} as artifact ${action.handle} (${action.reason}): ${action.fromTokens} → ${action.toTokens} tokens`;
    case 'chunked':
      return action.chunkTokens === 0
        ? `moved the stored cut: dropped ${action.messages} more message(s) (${action.tokens} tokens) to a turn start with headroom, so the cached prefix holds`
        : `dropped ${action.messages} more message(s) (${action.tokens} tokens) to a ${action.chunkTokens}-token chunk boundary, so the cached prefix holds`;
    case 'compacted':
      return action.carried === undefined || action.covered === undefined
        ? `compacted (${action.trigger}): ${action.messages} message(s) passed the cut into the rolling summary (${action.summaryTokens} tokens, ${action.summarizer})`
        : `compacted (${action.trigger}): ${action.messages} message(s) passed the cut; the rolling summary (${action.summaryTokens} tokens, ${action.summarizer}) carries ${action.carried} of the ${action.covered} before it`;
    case 'summarizer-failed':
      return `summariser ${action.summarizer} failed (${action.error}); used ${action.fallback}`;
  }
}

function percent(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}

function bar(share: number, width: number): string {
  const filled = Math.max(0, Math.min(width, Math.round(share * width)));
  return '█'.repeat(filled) + '░'.repeat(width - filled);
}
