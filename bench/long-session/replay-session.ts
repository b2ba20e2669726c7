import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { countCallTokens } from '../../src/ai-sdk/index.ts';
import { countMessage, type Message, type TokenCounter } from '../../src/core/index.ts';
import { createNotebookApp } from '../../src/server/index.ts';
import { createFileSessionStore, createSessionEngine, type SessionCompile } from '../../src/session/index.ts';
import { getTokenCounter } from '../../src/tokenizers/index.ts';
import { openWorkspace } from '../../src/workspace/index.ts';
import type { ReplayConversation } from './locomo-replay.ts';

const EXAMPLE = fileURLToPath(new URL('../../examples/notebook/', import.meta.url));
const USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** What one replay measured (see {@link replayConversation}). */
export interface ReplayResult {
  conversation: string;
  window: number;
  turns: number;
  messages: number;
  /** Evidence (question, turn) pairs, and how many each context held. */
  evidence: number;
  present: { ctxloom: number; ctxloomWithSummaryLines: number; recency: number; summaryPlusRecent: number };
  /** Questions all of whose evidence each context held. */
  questions: number;
  questionsAll: { ctxloom: number; recency: number };
  /** Most history messages a call dropped `over-budget` (neither sent, covered nor recallable). */
  maxUnaccounted: number;
  /** Calls whose report total differs from what the recording provider received. */
  reportMismatches: number;
  calls: number;
  compactions: number;
  tokensPerTurn: { mean: number; max: number };
  /** Median turn time (ms) of turns 1–10 and of the last ten turns. */
  turnMs: { first: number; last: number };
  /** The same in CPU time of this process (less sensitive to a loaded machine). */
  turnCpuMs: { first: number; last: number };
}

/**
 * Replays one LoCoMo conversation through `engine.runTurn` in a new session (made by the
 * notebook's `POST /api/sessions`, its window set to `window`), with a scripted model that
 * answers each user message with speaker B's turns and records what it received; then asks
 * every question through `engine.compile(id, { query })` and checks whether each evidence
 * turn is in what the call would send — against recency and "summary + recent" with the same
 * number of history tokens.
 */
export async function replayConversation(input: {
  conversation: ReplayConversation;
  window: number;
  counter?: TokenCounter;
  maxTurns?: number;
}): Promise<ReplayResult> {
  const { conversation, window } = input;
  const counter = input.counter ?? getTokenCounter('gpt-4o');
  const root = await mkdtemp(join(tmpdir(), 'ctxloom-long-session-'));
  try {
    await cp(EXAMPLE, root, { recursive: true, filter: (source) => !source.includes('raft-consensus') });
    await writeFile(join(root, 'sessions.json'), '[]\n');
    const workspace = openWorkspace({ root });
    let clock = new Date('2023-01-01T00:00:00Z');
    let ids = 0;
    const createId = () => `id-${(++ids).toString(36).padStart(6, '0')}`;
    // The new session's manifest, exactly as the notebook writes it.
    const app = createNotebookApp({ workspace, model: offlineStub() });
    const created = await app.request('/api/sessions', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ concept: conversation.id, id: conversation.id }),
    });
    if (created.status !== 201 && created.status !== 200) {
      throw new Error(`POST /api/sessions answered ${created.status}: ${await created.text()}`);
    }
    const configPath = join(root, conversation.id, 'context-config.json');
    const config = JSON.parse(await readFile(configPath, 'utf8'));
    config.budget.window = window;
    // `BENCH_LONG_SPLIT=recall,summary,keep` tries other shares than the defaults (decision 040).
    const split = process.env.BENCH_LONG_SPLIT?.split(',').map(Number);
    if (split !== undefined) {
      const [recallRatio, summaryRatio, keepRatio] = split;
      config.chatHistory.longSession = { recallRatio, summaryRatio, keepRatio };
    }
    await writeFile(configPath, `${JSON.stringify(config, null, 2)}\n`);

    let answer = '';
    const model = new MockLanguageModelV4({
      doStream: async () => ({ stream: simulateReadableStream({ chunks: textStream(answer) }) }),
    });
    const engine = createSessionEngine({
      workspace,
      store: createFileSessionStore({ workspace }),
      model: { model, spec: 'scripted locomo', offline: true },
      now: () => clock,
      createId,
    });
    const idOfDia = new Map<string, string>();
    const turnMs: number[] = [];
    const turnCpuMs: number[] = [];
    const turns = conversation.turns.slice(0, input.maxTurns ?? conversation.turns.length);
    for (const [index, turn] of turns.entries()) {
      clock = turn.at;
      answer = turn.answer;
      const userId = `u${index + 1}`;
      const started = performance.now();
      const cpu = process.cpuUsage();
      const running = await engine.runTurn({
        sessionId: conversation.id,
        text: turn.user,
        messageId: userId,
      });
      for await (const _ of running.stream);
      const stored = await running.stored;
      turnMs.push(performance.now() - started);
      const used = process.cpuUsage(cpu);
      turnCpuMs.push((used.user + used.system) / 1000);
      for (const dia of turn.userDiaIds) idOfDia.set(dia, userId);
      const answerId = stored.at(-1)?.id;
      if (answerId !== undefined) for (const dia of turn.answerDiaIds) idOfDia.set(dia, answerId);
    }

    // Every call: report = what the provider received; nothing left over-budget.
    const calls = (await engine.listCalls(conversation.id, { limit: 1000 })).filter(
      (call) => call.agentId === undefined || call.agentId === 'assistant',
    );
    const received = model.doStreamCalls as LanguageModelV4CallOptions[];
    let reportMismatches = 0;
    const offset = received.length - calls.length;
    for (const [index, call] of calls.entries()) {
      const sent = received[offset + index];
      if (sent === undefined || countCallTokens(sent, counter) !== call.report.totalTokens)
        reportMismatches++;
    }
    let maxUnaccounted = 0;
    let compactions = 0;
    const totals: number[] = [];
    for (const call of calls) {
      totals.push(call.report.totalTokens);
      let unaccounted = 0;
      for (const layer of call.report.layers) {
        for (const dropped of layer.dropped) {
          // A step of the turn dropped for room is recallable (`recallTool`, decision 070).
          const { reason } = dropped;
          if (layer.layer === 'history' && reason.type === 'over-budget' && reason.recallTool === undefined)
            unaccounted += dropped.run?.count ?? 1;
        }
      }
      maxUnaccounted = Math.max(maxUnaccounted, unaccounted);
      compactions += call.report.compaction.filter((action) => action.type === 'compacted').length;
    }

    // The questions, asked at the end.
    const state = await engine.store.load(conversation.id);
    const conversationMessages = state.messages;
    const tokensOf = new Map(
      conversationMessages.map((message) => [message.id, countMessage(counter, message)]),
    );
    let evidence = 0;
    const present = { ctxloom: 0, ctxloomWithSummaryLines: 0, recency: 0, summaryPlusRecent: 0 };
    const questionsAll = { ctxloom: 0, recency: 0 };
    for (const question of conversation.questions) {
      const compiled = await engine.compile(conversation.id, { query: question.question });
      const sent = sentMessageIds(compiled);
      const carried = summaryCarried(compiled);
      const historyTokens = historyBudget(compiled);
      const recent = newestWithin(conversationMessages, tokensOf, historyTokens);
      const summaryTokens = layerTokens(compiled, 'compression__context');
      const recentAfterSummary = newestWithin(conversationMessages, tokensOf, historyTokens - summaryTokens);
      let allCtxloom = true;
      let allRecency = true;
      for (const dia of question.evidence) {
        const id = idOfDia.get(dia);
        evidence++;
        const inCtxloom = id !== undefined && sent.has(id);
        const inRecency = id !== undefined && recent.has(id);
        if (inCtxloom) present.ctxloom++;
        if (inCtxloom || (id !== undefined && carried.has(id))) present.ctxloomWithSummaryLines++;
        if (inRecency) present.recency++;
        if (id !== undefined && (recentAfterSummary.has(id) || carried.has(id))) present.summaryPlusRecent++;
        allCtxloom &&= inCtxloom;
        allRecency &&= inRecency;
      }
      if (allCtxloom) questionsAll.ctxloom++;
      if (allRecency) questionsAll.recency++;
    }
    const ordered = [...turnMs];
    const firstTen = median(ordered.slice(0, 10));
    const lastTen = median(ordered.slice(-10));
    return {
      conversation: conversation.id,
      window,
      turns: turns.length,
      messages: conversationMessages.length,
      evidence,
      present,
      questions: conversation.questions.length,
      questionsAll,
      maxUnaccounted,
      reportMismatches,
      calls: calls.length,
      compactions,
      tokensPerTurn: {
        mean: totals.reduce((sum, value) => sum + value, 0) / Math.max(1, totals.length),
        max: Math.max(0, ...totals),
      },
      turnMs: { first: firstTen, last: lastTen },
      turnCpuMs: { first: median(turnCpuMs.slice(0, 10)), last: median(turnCpuMs.slice(-10)) },
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** Ids of the messages a compile sends verbatim: history, and recalled ones. */
function sentMessageIds(compiled: SessionCompile): Set<string> {
  const ids = new Set<string>();
  for (const block of compiled.compiled.kept) {
    if (block.layer === 'history') {
      const id = (block.metadata as { message?: Message }).message?.id;
      if (id !== undefined) ids.add(id);
    } else if (typeof block.metadata.messageId === 'string') ids.add(block.metadata.messageId);
  }
  return ids;
}

/** Ids the sent summary carries a line for (its periods' `carried`), when it is sent. */
function summaryCarried(compiled: SessionCompile): Set<string> {
  const sentSummary = compiled.compiled.kept.some((block) => block.layer === 'compression__context');
  const ids = new Set<string>();
  if (!sentSummary) return ids;
  for (const period of compiled.state.compression.summary?.periods ?? []) {
    for (const id of period.carried ?? []) ids.add(id);
  }
  return ids;
}

function layerTokens(compiled: SessionCompile, layer: string): number {
  return compiled.report.layers.find((entry) => entry.layer === layer)?.tokens ?? 0;
}

/** The tokens the compile spent on the conversation: history, recall and summary. */
function historyBudget(compiled: SessionCompile): number {
  return (
    layerTokens(compiled, 'history') +
    layerTokens(compiled, 'recall__context') +
    layerTokens(compiled, 'compression__context')
  );
}

/** Ids of the newest messages whose tokens fit `budget` (plain recency). */
function newestWithin(
  messages: readonly Message[],
  tokens: ReadonlyMap<string, number>,
  budget: number,
): Set<string> {
  const ids = new Set<string>();
  let used = 0;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as Message;
    const cost = tokens.get(message.id) ?? 0;
    if (used + cost > budget) break;
    used += cost;
    ids.add(message.id);
  }
  return ids;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return 0;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function textStream(text: string): LanguageModelV4StreamPart[] {
  return [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't' },
    { type: 'text-delta', id: 't', delta: text },
    { type: 'text-end', id: 't' },
    { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE },
  ];
}

/** The notebook app only creates the session here; its own model is never called. */
function offlineStub() {
  return {
    model: new MockLanguageModelV4({
      doStream: async () => ({ stream: simulateReadableStream({ chunks: textStream('') }) }),
    }),
    spec: 'unused',
    offline: true,
  };
}
