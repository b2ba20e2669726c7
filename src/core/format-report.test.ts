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

  it('gives every token of the call a row: layers, tool definitions and request overhead add up to the total', async () => {
    const counter = createCharCounter();
    const schema = (field: string) => ({ type: 'object', properties: { [field]: { type: 'string' } } });
    const tools = [
      { name: 'read_file', description: 'Read a file of the session', inputSchema: schema('path') },
      { name: 'search', description: 'Search the session files', inputSchema: schema('query') },
    ];
    const { report } = await compileContext(
      {
        systemPrompt: 'You are a careful tutor.',
        contexts: { knowledge__context: 'Raft elects one leader per term.', todo__context: '- [ ] read §5' },
        history: [
          { id: 'u1', role: 'user', content: 'What is a term?' },
          { id: 'a1', role: 'assistant', content: 'A logical clock.' },
        ],
        query: 'And the log?',
      },
      { counter, window: 4000, tools },
    );
    expect(report.tools?.definitions?.map((tool) => tool.name)).toEqual(['read_file', 'search']);
    expect(report.tools?.definitions?.reduce((sum, tool) => sum + tool.tokens, 0)).toBe(report.tools?.tokens);

    const lines = formatReport(report, { verbose: true }).split('\n');
    const header = lines.findIndex((line) => line.startsWith('layer '));
    const total = lines.findIndex((line) => line.startsWith('total '));
    const rows = lines.slice(header + 1, total).filter((line) => !line.startsWith('  - '));
    const tokensOf = (line: string) => Number(/^\S.*?\s{2,}([\d,]+)/u.exec(line)?.[1]?.replace(/,/gu, ''));
    expect(rows.map((line) => line.split(/\s{2,}/u)[0])).toEqual([
      ...report.layers.map((layer) => layer.layer),
      'tools (2)',
      ...(report.overheadTokens > 0 ? ['(request overhead)'] : []),
    ]);
    expect(rows.reduce((sum, line) => sum + tokensOf(line), 0)).toBe(report.totalTokens);
    expect(tokensOf(lines[total] ?? '')).toBe(report.totalTokens);
    expect(lines).toContain(`  - search (${report.tools?.definitions?.[1]?.tokens} tok)`);
  });

  it("says how many messages before the cut a compaction's summary carries, when the record says it", async () => {
    const { report } = await compileContext(
      { systemPrompt: 'sys', query: 'q' },
      { counter: createCharCounter(), window: 1000 },
    );
    const compacted = {
      type: 'compacted',
      trigger: 'overflow',
      messages: 414,
      throughMessageId: 'D19:3',
      summaryTokens: 130,
      summarizer: 'extractive',
    } as const;
    expect(formatReport({ ...report, compaction: [{ ...compacted, carried: 6, covered: 414 }] })).toContain(
      'compacted (overflow): 414 message(s) passed the cut; the rolling summary (130 tokens, extractive) carries 6 of the 414 before it',
    );
    // A record from before the counts: the earlier wording.
    expect(formatReport({ ...report, compaction: [compacted] })).toContain(
      'compacted (overflow): 414 message(s) passed the cut into the rolling summary (130 tokens, extractive)',
    );
  });
});
