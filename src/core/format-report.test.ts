import { describe, expect, it } from 'vitest';
import { createCharCounter } from '../testing/char-counter.ts';
import { compileContext } from './compile.ts';
import { formatReport } from './format-report.ts';

describe('formatReport', () => {
  it('renders the window, the total, one row per layer and the drop reasons', async () => {
    const counter = createCharCounter();
    const history = Array.from({ length: 30 }, (_, index) => ({
      id: `m${index}`,
      role: 'user' as const,
      content: 'x'.repeat(50),
    }));
    const { report } = await compileContext(
      { systemPrompt: 'sys', history, query: 'q' },
      { counter, window: 1000 },
    );
    const text = formatReport(report);
    expect(text).toContain('window 1,000 · output reserve 250 · input budget 750');
    expect(text).toMatch(/^history\s+\d+\s+[\d.]+%\s+\d+\s+0\s+\d+/mu);
    expect(text).toMatch(/dropped:\n\s+\d+ × history: over budget/u);
    expect(text).not.toContain('\u001b[');
    expect(formatReport(report, { color: true })).toContain('\u001b[');
  });
});
