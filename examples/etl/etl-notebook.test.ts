import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CallRecord, CompileReport, Message } from '../../src/core/index.ts';
import { createOfflineModel } from '../../src/llm/index.ts';
import { createNotebookApp } from '../../src/server/index.ts';
import { openEtlSession, playScript } from './run.ts';
import { ETL_SCRIPT } from './scripted-conversation.ts';

const dir = mkdtempSync(join(tmpdir(), 'ctxloom-etl-notebook-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The ETL session served by the notebook app: the same engine, store and process.
describe('the notebook on the ETL session (same engine as examples/etl)', async () => {
  const { session, saver } = await openEtlSession({ path: join(dir, 'etl.db') });
  await playScript(session, ETL_SCRIPT.slice(0, 2));
  const app = createNotebookApp({
    workspace: session.workspace,
    store: session.store,
    process: session.process,
    model: { model: createOfflineModel(), spec: 'offline', offline: true },
  });
  const get = async <T>(path: string) => {
    const response = await app.request(`/api/sessions/${session.sessionId}${path}`);
    expect(response.status).toBe(200);
    return (await response.json()) as T;
  };
  const preview = await get<{ report: CompileReport; messages: Message[] }>('/context-preview');
  const direct = await session.preview();
  const next = ETL_SCRIPT[2]!.user;
  const chat = await app.request(`/api/sessions/${session.sessionId}/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ id: 'u2', role: 'user', parts: [{ type: 'text', text: next }] }] }),
  });
  const streamed = await chat.text();
  const calls = await get<{ calls: CallRecord[] }>('/calls');
  const shown = await get<{
    messages: {
      id: string;
      role: string;
      metadata?: { context?: { callId?: string; callIds?: string[] } };
    }[];
  }>('');
  const stored = await session.messages();
  afterAll(() => saver.close());

  it('previews the current agent’s next call exactly as the agent node compiles it, with the session manifest’s layers', () => {
    expect(preview.messages).toEqual(direct.messages);
    expect(preview.report.totalTokens).toBe(direct.report.totalTokens);
    expect(preview.report.layers.map((layer) => layer.layer)).toContain('todo__context');
    expect(String(preview.messages[0]?.content)).toContain('analyst');
    // The session prompt (`session-prompt.md`, named by the manifest) comes before the agent's own.
    expect(String(preview.messages[0]?.content)).toMatch(/^ETL pipeline \(orders\)\n\n/u);
  });

  it('runs a chat turn through the process: routed, answered, logged, stored once', () => {
    expect(chat.status).toBe(200);
    expect(streamed).toContain('data-context-report');
    const turnCalls = calls.calls.filter((call) => call.turnId === 'human:window-1:u2');
    // The semantic router's call, then the planner's: both compiled and logged.
    expect(turnCalls.map((call) => call.agentId)).toEqual(['router', 'planner']);
    expect(stored.filter((message) => message.id === 'human:window-1:u2')).toHaveLength(1);
    expect(stored.at(-1)?.role).toBe('assistant');
  });

  it('shows the answer with its turn’s calls, as a chat answer (the chip opens the agent’s call)', () => {
    const turnCalls = calls.calls.filter((call) => call.turnId === 'human:window-1:u2');
    const answer = shown.messages.at(-1);
    expect(answer?.role).toBe('assistant');
    expect(answer?.metadata?.context?.callId).toBe(turnCalls.at(-1)?.id);
    expect(answer?.metadata?.context?.callIds).toEqual(turnCalls.map((call) => call.id));
  });
});
