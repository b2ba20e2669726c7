import { describe, expect, it } from 'vitest';
import type { DropReason } from '../../src/core/index.ts';
import { translator } from '../../web/src/i18n.ts';
import { describeReason } from '../../web/src/report-format.ts';

const REASONS: DropReason[] = [
  { type: 'duplicate', of: 'k1' },
  { type: 'over-budget', grantTokens: 1200 },
  { type: 'history-window', maxMessages: 6 },
  { type: 'pinned-over-budget', budgetTokens: 800 },
  { type: 'share-disabled' },
  { type: 'summarized', into: 'compression__context' },
];

describe('describeReason (notebook)', () => {
  it('words every drop reason in both languages, with its number filled in', () => {
    for (const locale of ['en', 'zh'] as const) {
      const t = translator(locale);
      const lines = REASONS.map((reason) => describeReason(reason, t));
      for (const line of lines) expect(line).not.toMatch(/[{}]/u);
      expect(new Set(lines).size).toBe(REASONS.length);
    }
    expect(describeReason({ type: 'history-window', maxMessages: 6 }, translator('en'))).toBe(
      'outside the history window (last 6 messages)',
    );
    expect(describeReason({ type: 'history-window', maxMessages: 6 }, translator('zh'))).toBe(
      '超出历史窗口（仅保留最近 6 条消息）',
    );
  });
});
