import { describe, expect, it } from 'vitest';
import { getTokenCounter } from '../tokenizers/index.ts';
import { createInMemoryArtifactStore } from './artifact-handles.ts';
import { createStepCompiler } from './compile-step.ts';
import { diffReports } from './diff-reports.ts';
import type { Message } from './message.ts';
import type { CompileReport } from './report.ts';
import { readFileMessages } from './tool-reads.test-support.ts';

const counter = getTokenCounter('gpt-4o');
const readFile = {
  name: 'read_file',
  description: 'Read a file of the workspace',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

function read(id: string, lines: number): Message[] {
  const text = Array.from(
    { length: lines },
    (_, index) => `${id} line ${index}: the loader retries batch ${index} after a timeout.`,
  ).join('\n');
  return readFileMessages(id, text);
}

describe('prompt-cache prefix across a tool session', () => {
  it('rewrites nothing before the previous query: outputs are full in their turn, the same placeholder after', async () => {
    const store = createInMemoryArtifactStore();
    const history: Message[] = [];
    const calls: { report: CompileReport; turn: number }[] = [];
    for (let turn = 0; turn < 4; turn++) {
      const query: Message = { id: `q${turn}`, role: 'user', content: `Turn ${turn}: review two files.` };
      const steps = createStepCompiler({
        request: { systemPrompt: 'You review files.', history, query },
        options: { counter, window: 64_000, tools: [readFile], toolResults: { store } },
      });
      const produced: Message[] = [];
      for (let call = 0; call < 3; call++) {
        const compiled = await steps.compile(produced);
        calls.push({ report: compiled.report, turn });
        if (call < 2) produced.push(...read(`t${turn}f${call}`, 60));
      }
      history.push(query, ...produced, {
        id: `a${turn}`,
        role: 'assistant',
        content: `Reviewed turn ${turn}.`,
      });
    }
    for (let index = 1; index < calls.length; index++) {
      const previous = calls[index - 1] as { report: CompileReport; turn: number };
      const current = calls[index] as { report: CompileReport; turn: number };
      const { cache } = diffReports(previous.report, current.report, { minCacheTokens: 0 });
      const sent = previous.report.messages ?? [];
      if (current.turn === previous.turn) {
        // A step only appends: the whole previous call is the prefix.
        expect(cache.prefixMessages).toBe(sent.length);
      } else {
        // A new turn: the prefix runs at least through the previous query, and ends where that
        // turn's first output, full until now, became its placeholder.
        const previousQuery = sent.findIndex((message) => message.layer === 'query');
        expect(cache.prefixMessages).toBeGreaterThan(previousQuery);
        expect(current.report.messages?.[cache.prefixMessages]?.role).toBe('tool');
        expect(sent[cache.prefixMessages]?.role).toBe('tool');
        const prefixTokens = sent
          .slice(0, cache.prefixMessages)
          .reduce((sum, message) => sum + message.tokens, 0);
        expect(cache.cachedTokens).toBe(
          prefixTokens + (current.report.tools?.tokens ?? 0) + current.report.overheadTokens,
        );
      }
      expect(current.report.compaction.every((action) => action.type === 'placeholder')).toBe(true);
    }
    // Every earlier turn's output is a placeholder in the last call.
    const last = calls.at(-1)?.report;
    expect(last?.compaction.filter((action) => action.type === 'placeholder')).toHaveLength(6);
  });
});
