import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LanguageModelV4, LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countCallTokens } from '../ai-sdk/index.ts';
import { createOfflineModel } from '../llm/index.ts';
import { createTestNotebook } from '../server/test-workspace.test-support.ts';
import { getTokenCounter } from '../tokenizers/index.ts';
import { createSessionEngine } from './create-session-engine.ts';
import { createFileSessionStore } from './file-session-store.ts';
import type { CallRecord } from './session-store.ts';

const SESSION = 'raft-consensus';
const counter = getTokenCounter('gpt-4o');

let notebook: Awaited<ReturnType<typeof createTestNotebook>>;
beforeEach(async () => {
  notebook = await createTestNotebook();
});
afterEach(async () => {
  await notebook.cleanup();
});

describe('a tool turn in a window its fixed parts nearly fill (decision 074)', () => {
  it('sends every step after a tool call with the turn’s own call and result', async () => {
    // 2,700 tokens (2,025 of input): the system prompt, the pinned TODO layer's reserve and the
    // query leave the layers' allocations ~0, while the TODO file that does not fit leaves its
    // reserve unused. Before decision 074 the steps after each read were sent without the read.
    const path = join(notebook.root, SESSION, 'context-config.json');
    const config = JSON.parse(await readFile(path, 'utf8'));
    config.budget.window = 2700;
    await writeFile(path, JSON.stringify(config, null, 2));
    const offline = createOfflineModel();
    const sent: number[] = [];
    const recording = (options: LanguageModelV4CallOptions) => sent.push(countCallTokens(options, counter));
    const model: LanguageModelV4 = {
      ...offline,
      doGenerate: (options) => {
        recording(options);
        return offline.doGenerate(options);
      },
      doStream: (options) => {
        recording(options);
        return offline.doStream(options);
      },
    };
    const workspace = notebook.workspace;
    const store = createFileSessionStore({ workspace });
    const records: CallRecord[] = [];
    const append = store.appendCall.bind(store);
    store.appendCall = async (id, record) => {
      records.push(record);
      return append(id, record);
    };
    const engine = createSessionEngine({
      workspace,
      store,
      model: { model, spec: 'offline', offline: true },
    });
    const texts = [
      'Please read guidance.md',
      'What is a term in Raft, in one sentence?',
      'Please read milestones.md',
      'Please read guidance.md',
      'And what does a follower do when its election timer fires?',
      'Please read milestones.md',
    ];
    for (const text of texts) {
      const running = await engine.runTurn({ sessionId: SESSION, text });
      for await (const _chunk of running.stream) {
        // read to the end
      }
      await running.stored;
    }
    const steps = records.filter((record) => record.step > 0);
    expect(steps.length).toBeGreaterThanOrEqual(4);
    for (const record of steps) {
      const history = record.report.layers.find((layer) => layer.layer === 'history');
      // The turn's steps are the AI SDK messages of the call (ids `ai:…`), none dropped.
      expect(history?.kept.some((block) => block.id.startsWith('history:ai:'))).toBe(true);
      expect(history?.dropped.filter((entry) => entry.id.startsWith('history:ai:'))).toEqual([]);
    }
    expect(records.map((record) => record.report.totalTokens)).toEqual(sent);
    for (const record of records)
      expect(record.report.totalTokens).toBeLessThanOrEqual(record.report.inputBudget);
  });
});
