import { describe, expect, it } from 'vitest';
import type { DropReason } from '../../src/core/index.ts';
import { translator } from '../../web/src/i18n.ts';
import { describeAction, describeReason } from '../../web/src/report-format.ts';

const REASONS: DropReason[] = [
  { type: 'duplicate', of: 'k1' },
  { type: 'over-budget', grantTokens: 1200 },
  { type: 'over-budget', grantTokens: 1200, recallTool: 'search_history' },
  { type: 'history-window', maxMessages: 6 },
  { type: 'pinned-over-budget', budgetTokens: 800 },
  { type: 'share-disabled' },
  { type: 'summarized', into: 'compression__context' },
  { type: 'recalled', into: 'recall__context' },
  { type: 'recallable', tool: 'search_history' },
];

describe('describeReason (notebook)', () => {
  it('words every drop reason in both languages, with its number filled in', () => {
    for (const locale of ['en', 'zh'] as const) {
      const t = translator(locale);
      const lines = REASONS.map((reason) => describeReason(reason, t));
      for (const line of lines) expect(line).not.toMatch(/[{}]/u);
      expect(new Set(lines).size).toBe(REASONS.length);
    }
    expect(
      describeReason(
        { type: 'over-budget', grantTokens: 756, recallTool: 'search_history' },
        translator('en'),
      ),
    ).toBe('over budget (layer grant 756): a step of this turn, the model can find it with search_history');
    expect(describeReason({ type: 'history-window', maxMessages: 6 }, translator('en'))).toBe(
      'outside the history window (last 6 messages)',
    );
    expect(describeReason({ type: 'history-window', maxMessages: 6 }, translator('zh'))).toBe(
      '超出历史窗口（仅保留最近 6 条消息）',
    );
  });
});

describe('describeAction (notebook)', () => {
  it('words an automatic compaction with its trigger in the page language, never the raw value', () => {
    const action = {
      type: 'compacted',
      trigger: 'soft-limit',
      messages: 12,
      throughMessageId: 'm12',
      summaryTokens: 340,
      summarizer: 'extractive',
    } as const;
    expect(describeAction(action, translator('en'))).toBe(
      'compacted (automatically, near the soft limit): 12 messages moved into the rolling summary (340, extractive)',
    );
    expect(describeAction(action, translator('zh'))).toContain('接近软上限');
    // What the summary carries, when the record says it (records since 2026-12-03).
    const carried = { ...action, carried: 5, covered: 40 };
    expect(describeAction(carried, translator('en'))).toBe(
      'compacted (automatically, near the soft limit): 12 messages passed the cut; the rolling summary (340, extractive) carries 5 of the 40 before it',
    );
    expect(describeAction(carried, translator('zh'))).toContain('承载截断点前 40 条中的 5 条');
    expect(describeAction({ ...action, trigger: 'command' }, translator('en'))).toMatch(
      /^compacted \(by \/compress\)/u,
    );
  });
});

describe('describeAction (notebook), Chinese', () => {
  it('words a trim boundary and a placeholder reason in the page language, not as the raw value', () => {
    const trimmed = {
      type: 'trimmed',
      blockId: 'recall:m013',
      layer: 'recall__context',
      fromTokens: 104,
      toTokens: 19,
      boundary: 'sentence',
    } as const;
    expect(describeAction(trimmed, translator('en'))).toBe(
      'trimmed recall:m013: 104 → 19 tokens (at a sentence boundary)',
    );
    expect(describeAction(trimmed, translator('zh'))).toBe('截断 recall:m013：104 → 19 token（在句子边界）');
    const placeholder = {
      type: 'placeholder',
      blockId: 'history:t1',
      toolName: 'read_file',
      handle: 'art_1',
      fromTokens: 781,
      toTokens: 205,
      reason: 'earlier-turn',
    } as const;
    expect(describeAction(placeholder, translator('en'))).toBe(
      'read_file output → artifact art_1: 781 → 205 (from an earlier turn)',
    );
    expect(describeAction(placeholder, translator('zh'))).toBe(
      'read_file 输出 → 工件 art_1：781 → 205（来自较早的轮次）',
    );
    for (const reason of ['oversized', 'page-shrunk', 'no-room'] as const)
      expect(describeAction({ ...placeholder, reason }, translator('zh'))).not.toContain(reason);
  });
});
