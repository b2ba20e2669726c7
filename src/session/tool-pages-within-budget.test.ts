import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  chineseFile,
  nextArtifactCall,
  toolResultTexts,
} from '../ai-sdk/follow-placeholders.test-support.ts';
import { countCallTokens } from '../ai-sdk/index.ts';
import { createTestNotebook } from '../server/test-workspace.test-support.ts';
import { getTokenCounter } from '../tokenizers/index.ts';
import { createWindowedSession, recordingEngine, textAnswer, toolCall } from './long-session.test-support.ts';

const SESSION = 'pages';
const counter = getTokenCounter('gpt-4o');
let notebook: Awaited<ReturnType<typeof createTestNotebook>>;

beforeEach(async () => {
  notebook = await createTestNotebook();
});
afterEach(async () => {
  await notebook.cleanup();
});

/** A conversation of seeded sentences, some of which the requirement TODO picks up. */
function conversation(turns: number, seed: number): { user: string; answer: string }[] {
  let state = seed;
  const random = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
  const words = ['must', 'prefer', 'from', 'check?', 'lighthouse', 'violin', 'glacier', 'we', 'talked']
    .concat(['about', 'the', 'trip', 'to', 'Paris', 'last', 'summer', 'my', 'sister', 'painted', 'a'])
    .concat(['mural', 'yesterday', 'and', 'I', 'felt', 'proud', 'of', 'her', 'work']);
  const sentence = (length: number) =>
    `${Array.from({ length }, () => words[Math.floor(random() * words.length)]).join(' ')}.`;
  const paragraph = (most: number, longest: number) =>
    Array.from({ length: 1 + Math.floor(random() * most) }, () =>
      sentence(5 + Math.floor(random() * longest)),
    ).join(' ');
  return Array.from({ length: turns }, () => ({ user: paragraph(3, 20), answer: paragraph(4, 25) }));
}

describe('a turn reading a large output by pages after /compress (decision 070, fourth amendment)', () => {
  it('fits every call: the oldest pages give way to stubs before the budget does', async () => {
    await createWindowedSession(notebook, SESSION, 5000);
    await writeFile(join(notebook.root, SESSION, 'big-zh.md'), chineseFile(counter, 6000));
    let answer = '';
    let opened = 0;
    let read = 0;
    const model = new MockLanguageModelV4({
      doStream: async (options) => {
        // It reads the file when asked, then follows the artifact's pages (six outputs a turn).
        const follow = nextArtifactCall(options.prompt);
        const results = toolResultTexts(options.prompt).length;
        if (follow !== undefined && results < 6) return toolCall(`o${++opened}`, 'open_artifact', follow);
        const asked = JSON.stringify(options.prompt.findLast((message) => message.role === 'user'));
        if (asked.includes('please read big-zh.md') && results === 0)
          return toolCall(`r${++read}`, 'read_file', { path: 'big-zh.md' });
        return textAnswer(answer);
      },
    });
    const engine = recordingEngine(notebook, model, 8);
    const turn = async (value: string) => {
      const running = await engine.runTurn({ sessionId: SESSION, text: value });
      for await (const _ of running.stream);
      return running.stored;
    };
    // Seed 5, with a read every eighth turn: a summary and a TODO view (with the artifact index
    // of the earlier reads) that the pages' first sizing leaves no room for, and a TODO view
    // that takes back what a fitted call frees (found by a search over seeds; on the parent
    // commit the reads failed `over-budget`, and with one fitted compile a step still did).
    for (const [index, exchange] of conversation(24, 5).entries()) {
      answer = exchange.answer;
      await turn(exchange.user);
      if (index % 8 === 3) {
        answer = 'Read it.';
        await turn(`Early ${index}: please read big-zh.md and tell me line ${index}.`);
      }
    }
    await turn('/compress');
    answer = 'Read it.';
    for (let reading = 0; reading < 3; reading++) {
      const stored = await turn(`Turn ${reading}: please read big-zh.md and tell me line ${reading}.`);
      expect(stored.find((message) => message.metadata?.turnError !== undefined)).toBeUndefined();
    }
    expect(read).toBe(6);
    // Every call of the reads is within its budget, and its report is what the model received.
    const calls = (await engine.listCalls(SESSION, { limit: 1000 })).filter(
      (call) => call.agentId === undefined || call.agentId === 'assistant',
    );
    const received = model.doStreamCalls as LanguageModelV4CallOptions[];
    expect(received).toHaveLength(calls.length);
    for (const [index, call] of calls.entries()) {
      expect(call.report.totalTokens).toBeLessThanOrEqual(call.report.inputBudget);
      expect(countCallTokens(received[index] as LanguageModelV4CallOptions, counter)).toBe(
        call.report.totalTokens,
      );
    }
    // The reads gave way where they had to: an older page stands as its stub.
    expect(
      calls.some((call) =>
        call.report.compaction.some(
          (action) => action.type === 'placeholder' && action.reason === 'page-shrunk',
        ),
      ),
    ).toBe(true);
  });
});
