import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockLanguageModelV4 } from 'ai/test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countCallTokens } from '../ai-sdk/index.ts';
import type { Message } from '../core/index.ts';
import { createModelSummarizer } from '../llm/index.ts';
import { getTokenCounter } from '../tokenizers/index.ts';
import { openWorkspace, type Workspace } from '../workspace/index.ts';
import { compileSession } from './compile-session.ts';
import { compressSession } from './compress-session.ts';
import { createFileSessionStore } from './file-session-store.ts';
import type { SessionStore } from './session-store.ts';

const counter = getTokenCounter('gpt-4o');
let root: string;
let workspace: Workspace;
let store: SessionStore;

const turns = (count: number): Message[] =>
  Array.from({ length: count }, (_, index) => ({
    id: `m${String(index + 1).padStart(3, '0')}`,
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: `Message ${index + 1} says the table orders_${index + 1} must keep its key. More detail follows here.`,
  }));

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ctxloom-compress-'));
  workspace = openWorkspace({ root });
  await workspace.sandbox.writeText(
    's1/context-config.json',
    '{ "chatHistory": { "strategy": "curated" } }\n',
  );
  store = createFileSessionStore({ workspace });
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('compressSession', () => {
  it('with a model summariser: the request fits the model’s window, covers what it sent, and is logged before it is sent', async () => {
    await store.appendMessages('s1', turns(300));
    const model = new MockLanguageModelV4({
      doGenerate: async () => {
        // The call was logged before the provider saw it.
        expect(await store.listCalls('s1')).toHaveLength(model.doGenerateCalls.length);
        return {
          content: [{ type: 'text', text: '- tables keep their keys' }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage: {
            inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
            outputTokens: { total: 1, text: 1, reasoning: 0 },
          },
          warnings: [],
        };
      },
    });
    const summarizer = createModelSummarizer({ model, name: 'model recording', counter, window: 4000 });
    const options = { store, sessionId: 's1', counter, summarizer, keepLast: 4, maxTokens: 300 };
    const result = await compressSession({ ...options, turnId: 'c1' });
    // 296 messages of ~25 tokens do not fit one 4,000-token request: the model summarises them
    // in runs, then the runs are merged into a summary under the cap — every message covered.
    const summary = result.summary;
    expect(summary?.requested).toBe(296);
    expect(summary?.newlyCovered).toBe(296);
    expect(summary?.notCovered).toBe(0);
    expect(summary?.tokens).toBeLessThanOrEqual(300);
    const calls = await store.listCalls('s1');
    expect(calls.length).toBe(model.doGenerateCalls.length);
    expect(calls.length).toBeGreaterThan(1);
    expect(calls[0]).toMatchObject({
      turnId: 'c1',
      step: 0,
      agentId: 'summarizer',
      model: 'model recording',
    });
    for (const [index, sent] of model.doGenerateCalls.entries()) {
      // The report is what was sent, and it fits the window with the summary's reserve.
      expect(countCallTokens(sent, counter)).toBe(calls[index]?.report.totalTokens);
      expect(calls[index]?.report.totalTokens).toBeLessThanOrEqual(4000);
    }
    // The first request holds the oldest turns, in order.
    const prompt = JSON.stringify(model.doGenerateCalls[0]?.prompt);
    expect(prompt).toContain('orders_1 ');
    // A model's period claims its whole run: the next compile reports all 296 summarised.
    const compiled = await compileSession({ workspace, store, sessionId: 's1', counter });
    const summarised = compiled.report.layers
      .flatMap((layer) => layer.dropped)
      .filter((entry) => entry.reason.type === 'summarized')
      .reduce((sum, entry) => sum + (entry.run?.count ?? 1), 0);
    expect(summarised).toBe(296);
  });

  it('covers every message it was asked to, and claims only the lines its text carries', async () => {
    await store.appendMessages('s1', turns(40));
    const result = await compressSession({ store, sessionId: 's1', counter, keepLast: 4, maxTokens: 120 });
    const summary = result.summary;
    expect(summary?.requested).toBe(36);
    expect(summary?.newlyCovered).toBe(36);
    expect(summary?.notCovered).toBe(0);
    const covered = summary?.summary;
    expect(covered?.fromMessageId).toBe('m001');
    expect(covered?.throughMessageId).toBe('m036');
    expect(summary?.tokens).toBeLessThanOrEqual(120);
    // The periods say which messages their lines carry; each carried line is in the text.
    const carried = new Set(covered?.periods?.flatMap((period) => period.carried ?? []));
    expect(carried.size).toBeGreaterThan(0);
    expect(carried.size).toBeLessThan(36);
    for (const id of carried) expect(covered?.text).toContain(`orders_${Number(id.slice(1))} `);

    // The next compile skips exactly the covered run: carried ones summarised, the rest recallable.
    const compiled = await compileSession({ workspace, store, sessionId: 's1', counter });
    const dropped = compiled.report.layers.flatMap((layer) => layer.dropped);
    const summarised = dropped.filter((entry) => entry.reason.type === 'summarized');
    const recallable = dropped.filter((entry) => entry.reason.type === 'recallable');
    expect(summarised).toHaveLength(carried.size);
    expect(recallable).toHaveLength(36 - carried.size);
  });

  it('extends the previous summary incrementally instead of starting over', async () => {
    await store.appendMessages('s1', turns(10));
    const first = await compressSession({ store, sessionId: 's1', counter, keepLast: 2, maxTokens: 2000 });
    expect(first.summary?.summary?.throughMessageId).toBe('m008');
    await store.appendMessages('s1', turns(16).slice(10));
    const second = await compressSession({ store, sessionId: 's1', counter, keepLast: 2, maxTokens: 2000 });
    expect(second.summary?.requested).toBe(6);
    expect(second.summary?.summary).toMatchObject({
      fromMessageId: 'm001',
      throughMessageId: 'm014',
      coveredCount: 14,
    });
    expect(second.summary?.summary?.text).toContain('orders_1 ');
    expect(second.compression.revision).toBe(2);
  });

  it('respects curation: dismissed text never comes back inside the summary', async () => {
    const messages = turns(12);
    messages[2] = {
      id: 'm003',
      role: 'user',
      content: 'My password is SECRET-XYZ, use it for the warehouse.',
    };
    messages[4] = { id: 'm005', role: 'user', content: 'Hidden note EXCLUDED-ABC for nobody.' };
    await store.appendMessages('s1', messages);
    await store.appendCuration('s1', [
      {
        id: 'e1',
        type: 'dismiss',
        targetMessageId: 'm003',
        by: 'user',
        at: '2026-01-01T00:00:00.000Z',
        summary: 'a credential',
      },
      { id: 'e2', type: 'exclude', targetMessageId: 'm005', by: 'user', at: '2026-01-01T00:00:00.000Z' },
    ]);
    const result = await compressSession({ store, sessionId: 's1', counter, keepLast: 2, maxTokens: 2000 });
    const text = result.summary?.summary?.text ?? '';
    expect(text).not.toContain('SECRET-XYZ');
    expect(text).not.toContain('EXCLUDED-ABC');
    expect(text).toContain('a credential');
    expect(result.summary?.summary?.coveredCount).toBe(10);
  });

  it('fills the requirement TODO with verbatim evidence and indexes tool results', async () => {
    await store.appendMessages('s1', [
      {
        id: 'u1',
        role: 'user',
        content: 'The report must use the table dw.orders v2.5 and keep 3.5% precision.',
      },
      {
        id: 'a1',
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: { path: 'spec.md' } }],
      },
      {
        id: 't1',
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'read_file',
            output: { type: 'text', value: '# Spec' },
          },
        ],
      },
    ]);
    const result = await compressSession({ store, sessionId: 's1', counter, keepLast: 0 });
    expect(result.requirements?.items).toBeGreaterThan(0);
    const requirement = result.compression.structured?.requirements.global.items[0];
    expect(JSON.stringify(requirement)).toContain('u1');
    expect(result.artifacts).toEqual({ evidence: 1, artifacts: 0 });
    expect(result.compression.processedThrough).toEqual({ requirements: 't1', artifacts: 't1' });
    // The views reach the next compile in todo__context.
    const compiled = await compileSession({ workspace, store, sessionId: 's1', counter });
    expect(compiled.compiled.contexts.todo__context ?? '').toContain('dw.orders');
    // A second run processes nothing twice.
    const again = await compressSession({ store, sessionId: 's1', counter, scope: 'artifacts' });
    expect(again.artifacts).toEqual({ evidence: 0, artifacts: 0 });
  });
});
