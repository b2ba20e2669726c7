import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nextArtifactCall, toolResultTexts } from '../ai-sdk/follow-placeholders.test-support.ts';
import { countCallTokens } from '../ai-sdk/index.ts';
import { describeReason } from '../core/format-report.ts';
import { createTestNotebook } from '../server/test-workspace.test-support.ts';
import { getTokenCounter } from '../tokenizers/index.ts';
import { createWindowedSession, recordingEngine, textAnswer, toolCall } from './long-session.test-support.ts';

const SESSION = 'steps';
const READS = 6;
const counter = getTokenCounter('gpt-4o');
let notebook: Awaited<ReturnType<typeof createTestNotebook>>;

beforeEach(async () => {
  notebook = await createTestNotebook();
});
afterEach(async () => {
  await notebook.cleanup();
});

describe("a turn's own steps dropped for room (decision 070, fifth amendment)", () => {
  it('are reported recallable, and search_history finds them while the turn runs', async () => {
    // A 3,000-token window: the fixed layers take about two thirds of the input budget, so six
    // reads in one turn do not fit even as placeholders and stubs.
    await createWindowedSession(notebook, SESSION, 3000);
    for (let file = 0; file < READS; file++) {
      const mark = file === 0 ? 'The zebrafinch ledger is kept in the attic. ' : '';
      const body = `${mark}The lighthouse keeper paints the glacier. `.repeat(60 + file * 30);
      await writeFile(join(notebook.root, SESSION, `f${file}.md`), `File ${file}: ${body}`);
    }
    let reads = 0;
    let searched = false;
    let searchedAt = 0;
    let opened = 0;
    const model = new MockLanguageModelV4({
      doStream: async (options) => {
        const asked = JSON.stringify(options.prompt.findLast((message) => message.role === 'user'));
        if (!asked.includes('read the files')) return textAnswer('We talked about the trip to Paris.');
        if (reads < READS) {
          reads++;
          return toolCall(`r${reads}`, 'read_file', { path: `f${reads - 1}.md` });
        }
        if (!searched) {
          searched = true;
          searchedAt = (model.doStreamCalls as unknown[]).length;
          return toolCall('s1', 'search_history', { query: 'f0.md' });
        }
        // The search's answer is long for this window: it is read by pages, as its placeholder says.
        const follow = nextArtifactCall(options.prompt);
        if (follow !== undefined && opened < 12) return toolCall(`o${++opened}`, 'open_artifact', follow);
        return textAnswer('The ledger is in the attic.');
      },
    });
    const engine = recordingEngine(notebook, model, 30);
    const turn = async (text: string) => {
      const running = await engine.runTurn({ sessionId: SESSION, text });
      for await (const _ of running.stream);
      return running.stored;
    };
    for (let index = 0; index < 4; index++) await turn(`Turn ${index}: tell me about the trip.`);
    const stored = await turn('Please read the files f0.md to f5.md, then find where the ledger is.');
    expect(stored.find((message) => message.metadata?.turnError !== undefined)).toBeUndefined();
    expect(searched).toBe(true);

    const calls = (await engine.listCalls(SESSION, { limit: 1000 })).filter(
      (call) => call.agentId === undefined,
    );
    const received = model.doStreamCalls as LanguageModelV4CallOptions[];
    expect(received).toHaveLength(calls.length);
    // Every call is within its budget, and its report is what the model received.
    for (const [index, call] of calls.entries()) {
      expect(call.report.totalTokens).toBeLessThanOrEqual(call.report.inputBudget);
      expect(countCallTokens(received[index] as LanguageModelV4CallOptions, counter)).toBe(
        call.report.totalTokens,
      );
    }
    // The turn's first read was dropped for room before the search, and said to be recallable;
    // no history message of any call is dropped for room without a way back.
    const drops = calls.flatMap((call) =>
      call.report.layers.flatMap((layer) => (layer.layer === 'history' ? layer.dropped : [])),
    );
    const overBudget = drops.filter((drop) => drop.reason.type === 'over-budget');
    expect(overBudget.length).toBeGreaterThan(0);
    for (const drop of overBudget) {
      expect(drop.reason).toMatchObject({ recallTool: 'search_history' });
      expect(describeReason(drop.reason)).toContain('recallable with search_history');
    }
    // The calls after the search no longer hold the first read; the search's answer, read by its
    // pages, brings back its call and its output's words.
    const after = received.slice(searchedAt).map((call) => call.prompt);
    expect(after.length).toBeGreaterThan(1);
    for (const prompt of after) expect(JSON.stringify(prompt)).not.toContain('"path":"f0.md"');
    const found = after.map((prompt) => toolResultTexts(prompt).at(-1) ?? '').join('\n');
    expect(found).toContain('read_file({\\"path\\":\\"f0.md\\"})');
    expect(found).toContain('zebrafinch');
  });
});
