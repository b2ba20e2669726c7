import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { messageText } from '../../src/core/index.ts';
import { createCheckpointSessionStore } from '../../src/session/index.ts';
import type { EtlTurn } from './etl-session.ts';
import { openEtlSession, playScript } from './run.ts';
import { ETL_SCRIPT, type ScriptedTurn } from './scripted-conversation.ts';

const dir = mkdtempSync(join(tmpdir(), 'ctxloom-etl-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const outcomeOf = (turn: EtlTurn) =>
  turn.compress !== undefined
    ? 'command'
    : turn.commander?.outcome === 'clarification'
      ? `clarification:${turn.commander.reason}`
      : turn.commander?.outcome;

describe('ETL example on the dynamic process (scripted model, SqliteSaver)', async () => {
  const { session, saver, scripted } = await openEtlSession({ path: join(dir, 'full.db') });
  const turns = await playScript(session, ETL_SCRIPT);
  const state = await session.state();
  const messages = await session.messages();
  await saver.close();

  it('routes, resumes, clarifies and runs /compress in the scripted order', () => {
    expect(turns.map(outcomeOf)).toEqual([
      'routed',
      'routed',
      'routed',
      'resume',
      'routed',
      'clarification:malformed-output',
      'clarification:low-confidence',
      'routed',
      'routed',
      'routed',
      'command',
      'routed',
    ]);
    expect(turns.map((turn) => turn.agentId ?? '-').join(' ')).toBe(
      'analyst analyst planner planner sql_developer - - tester analyst sql_developer - tester',
    );
  });

  it('answers clarifications as the commander and /compress as the engine, without calling an agent', () => {
    expect(turns[5]?.reply).toMatch(/Which part of the task/);
    expect(turns[10]?.reply).toMatch(/^\/compress: context \d+ → \d+ tokens\./);
    expect(messages.filter((message) => message.id.startsWith('commander:'))).toHaveLength(2);
  });

  it('keeps global facts in the global TODO and queues the unsure one as an open question', () => {
    expect(state.requirements.global.items.map((item) => `${item.id}:${item.status}`)).toEqual([
      'G1:open',
      'G2:cancelled',
      'G3:open',
    ]);
    expect(state.requirements.openQuestions).toEqual([
      expect.objectContaining({ id: 'Q1', source: 'low-confidence-global-delta', confidence: 0.6 }),
    ]);
    expect(state.requirements.scoped.planner?.items.map((item) => item.text)).toEqual([
      'Run daily at 02:00',
      '需要回刷最近 90 天。',
    ]);
  });

  it('anchors every requirement to a checkpointed user message it quotes verbatim', () => {
    const snapshots = [state.requirements.global, ...Object.values(state.requirements.scoped)];
    const anchors = snapshots.flatMap((snapshot) => snapshot.items.flatMap((item) => item.evidence));
    expect(anchors.length).toBeGreaterThanOrEqual(8);
    for (const anchor of anchors) {
      const message = messages.find((candidate) => candidate.id === anchor.messageId);
      expect(message?.role).toBe('user');
      expect(messageText(message!)).toContain(anchor.quote);
      expect(anchor.messageId).toBe(`human:window-1:u${anchor.turnIndex}`);
    }
  });

  it('answers the planner’s question deterministically, without asking the router', () => {
    expect(turns[2]?.request).toMatchObject({ id: 'r2', createdBy: 'planner', kind: 'human' });
    expect(turns[3]?.commander).toMatchObject({
      outcome: 'resume',
      target: 'planner',
      resolvedRequestIds: ['r2'],
    });
  });

  it('indexes agent outputs by version and keeps SQL out of the index', () => {
    const artifacts = state.artifacts.index.artifacts.map((entry) => `${entry.id}:${entry.status}`);
    expect(artifacts).toContain('sql_job:orders_daily@v1:invalidated');
    expect(artifacts).toContain('sql_job:orders_daily@v2:active');
    expect(JSON.stringify(state.artifacts.index)).not.toContain('refund_flag');
    expect(state.artifacts.contents['sql_job:orders_daily@v1']).toContain('refund_flag');
  });

  it('compiles every agent input with the TODO and artifact views in todo__context', async () => {
    const { session: reader, saver: readSaver } = await openEtlSession({ path: join(dir, 'full.db') });
    const timeline = ((await reader.values()).timeline as { entries: { kind: string }[] }).entries;
    await readSaver.close();
    expect(timeline.filter((entry) => entry.kind === 'compact')).toHaveLength(9);
    expect(turns.filter((turn) => turn.compaction !== undefined)).toHaveLength(9);
    const agentPrompts = (scripted?.calls ?? []).filter((call) => !call.json).map((call) => call.prompt);
    expect(agentPrompts).toHaveLength(9);
    for (const prompt of agentPrompts) expect(prompt).toContain('## Requirements (global)');
    expect(agentPrompts.at(-1)).toContain('tester#2');
    expect(agentPrompts.at(-1)).toContain('sql_job:orders_daily@v2');
    // The router saw the bounded views too, never the audit trail or raw SQL.
    const routerPrompts = (scripted?.calls ?? []).filter((call) => call.json).map((call) => call.prompt);
    expect(routerPrompts.length).toBeGreaterThanOrEqual(8);
    for (const prompt of routerPrompts) expect(prompt).not.toContain('refund_flag = 0');
  });

  it('logs every model call — the router’s and every agent’s — in the thread’s call log', async () => {
    const { session: reader, saver: readSaver } = await openEtlSession({ path: join(dir, 'full.db') });
    const store = createCheckpointSessionStore({ saver: readSaver, threadIdOf: () => reader.threadId });
    const calls = await store.listCalls('etl');
    await store.close();
    await readSaver.close();
    const agentPrompts = (scripted?.calls ?? []).filter((call) => !call.json);
    const routerPrompts = (scripted?.calls ?? []).filter((call) => call.json);
    const agentCalls = calls.filter((call) => call.agentId !== 'router');
    expect(agentCalls).toHaveLength(agentPrompts.length);
    expect(agentCalls.map((call) => call.agentId).join(' ')).toBe(
      turns
        .map((turn) => turn.agentId)
        .filter((id) => id !== undefined)
        .join(' '),
    );
    // The semantic router's calls are compiled and logged too, under the message they route.
    const routerCalls = calls.filter((call) => call.agentId === 'router');
    expect(routerCalls).toHaveLength(routerPrompts.length);
    expect(routerCalls.every((call) => call.turnId.startsWith('human:window-1:u'))).toBe(true);
    for (const call of calls) expect(call.report.totalTokens).toBeGreaterThan(0);
  });

  it('turns on clipping for the rest of the session after /compress', () => {
    expect(state.forceContextClipping).toBe(true);
    expect(state.clippingScope).toBe('all');
    expect(turns[11]?.compaction?.trigger).toBe('none');
  });

  it('/compress (the engine’s command) summarises the history with its coverage and shrinks the next call', async () => {
    const compress = turns[10]?.compress;
    expect(compress?.tokensAfter).toBeLessThan(compress?.tokensBefore ?? 0);
    const { session: reader, saver: readSaver } = await openEtlSession({ path: join(dir, 'full.db') });
    const { compression } = await reader.store.load(reader.sessionId);
    const calls = await reader.store.listCalls(reader.sessionId);
    await readSaver.close();
    const summary = compression.summary;
    expect(summary?.fromMessageId).toBe(messages[0]?.id);
    expect(summary?.coveredCount).toBeGreaterThan(10);
    // The tester's call after /compress sends the summary and reports the covered messages as summarised.
    const last = calls.at(-1);
    expect(last?.agentId).toBe('tester');
    const history = last?.report.layers.find((layer) => layer.layer === 'history');
    const summarised = history?.dropped.filter((drop) => drop.reason.type === 'summarized') ?? [];
    expect(summarised.length).toBeGreaterThan(0);
    expect(
      last?.report.layers.find((layer) => layer.layer === 'compression__context')?.tokens,
    ).toBeGreaterThan(0);
  });
});

describe('ETL example: resume from the checkpoint', async () => {
  const path = join(dir, 'resume.db');
  const half = 6;
  const first = await openEtlSession({ path });
  const before = await playScript(first.session, ETL_SCRIPT.slice(0, half));
  await first.saver.close();
  const second = await openEtlSession({ path });
  const resent = await second.session.send(ETL_SCRIPT[half - 1]!.user, { inputId: `u${half - 1}` });
  const after = await playScript(second.session, ETL_SCRIPT.slice(half));
  const resumed = await second.session.state();
  const messages = await second.session.messages();
  await second.saver.close();
  const { session: straight, saver } = await openEtlSession({ path: join(dir, 'straight.db') });
  await playScript(straight, ETL_SCRIPT);
  const reference = await straight.state();
  await saver.close();

  it('continues the turn numbering and ignores a re-sent input', () => {
    expect(resent.accepted).toBe(false);
    expect([...before, ...after].map(outcomeOf)).toHaveLength(ETL_SCRIPT.length);
    expect(after[0]?.inputId).toBe(`u${half}`);
  });

  it('duplicates no message, requirement, delta, artifact or request', () => {
    const ids = messages.map((message) => message.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(messages.filter((message) => message.role === 'user')).toHaveLength(ETL_SCRIPT.length);
    const snapshots = [resumed.requirements.global, ...Object.values(resumed.requirements.scoped)];
    for (const snapshot of snapshots) {
      expect(new Set(snapshot.appliedDeltaIds).size).toBe(snapshot.appliedDeltaIds.length);
      expect(new Set(snapshot.items.map((item) => item.id)).size).toBe(snapshot.items.length);
    }
    const artifactIds = resumed.artifacts.index.artifacts.map((entry) => entry.id);
    expect(new Set(artifactIds).size).toBe(artifactIds.length);
  });

  it('ends in the same compression state as a session that never stopped', () => {
    const strip = (value: typeof resumed) =>
      JSON.parse(JSON.stringify(value, (key, v) => (key === 'atMs' || key === 'createdAtMs' ? 0 : v)));
    expect(strip(resumed).requirements).toEqual(strip(reference).requirements);
    expect(resumed.artifacts.index.artifacts.map((entry) => `${entry.id}:${entry.status}`)).toEqual(
      reference.artifacts.index.artifacts.map((entry) => `${entry.id}:${entry.status}`),
    );
  });
});

// One more tester turn after /compress, so the clipped payload outgrows its soft limit (the
// script's own last turn fits once /compress leaves evidence out of the artifact view).
const RECONCILE: ScriptedTurn = {
  user: '再加一个验收：dw.orders_daily 每天的 paid_amount 合计必须和 ods.orders 当天的合计完全一致，不允许任何误差，对不上就报警并阻止下游任务。',
  route: {
    targetAgent: 'tester',
    confidence: 0.9,
    actions: [
      {
        type: 'update_scoped_todo',
        ops: [
          {
            op: 'add',
            type: 'acceptance',
            priority: 'must',
            text: 'Daily paid_amount totals match ods.orders exactly',
            quote: 'paid_amount 合计必须和 ods.orders 当天的合计完全一致',
          },
        ],
      },
    ],
  },
  reply: `-- job: orders_daily_reconcile
SELECT d.dt FROM dw.orders_daily d JOIN (SELECT dt, sum(paid_amount) AS paid FROM ods.orders GROUP BY dt) o USING (dt) WHERE d.paid_amount <> o.paid;`,
};

describe('ETL example with small windows', async () => {
  const clipped = await openEtlSession({
    path: join(dir, 'clip.db'),
    window: 1350,
    script: [...ETL_SCRIPT, RECONCILE],
  });
  const clippedTurns = await playScript(clipped.session, [...ETL_SCRIPT, RECONCILE]);
  await clipped.saver.close();
  const soft = await openEtlSession({ path: join(dir, 'soft.db'), window: 1250 });
  const softTurns = await playScript(soft.session, ETL_SCRIPT);
  const softMessages = await soft.session.messages();
  await soft.saver.close();

  it('compiles the payloads after /compress under the soft limit, cutting only in the compile', () => {
    // Every payload after /compress is compiled under the soft limit (core's maxInputTokens);
    // what that leaves out is in the report (clipped history, or the soft compression's cut).
    for (const turn of clippedTurns.slice(11)) {
      expect(turn.compaction?.tokens).toBeLessThan(turn.compaction?.softLimit ?? 0);
    }
    const last = clippedTurns.at(-1)?.compaction;
    expect(last?.tokens).toBeLessThan(last?.softLimit ?? 0);
    expect(clippedTurns.slice(0, 10).every((turn) => (turn.compaction?.clippedIds.length ?? 0) === 0)).toBe(
      true,
    );
  });

  it('compresses once at the soft trigger and keeps the history cut for later calls', () => {
    const compressed = softTurns.flatMap((turn, index) =>
      turn.compaction?.compressed === 'soft' ? [index] : [],
    );
    expect(compressed).toEqual([9]);
    const [before, at, after] = [softTurns[8], softTurns[9], softTurns[11]].map(
      (turn) => turn?.compaction?.tokens ?? 0,
    );
    expect(at).toBeLessThan(before!);
    // `/compress` (turn 10) adds the history summary, and clipping keeps later payloads under the soft limit.
    expect(after).toBeLessThan(softTurns[11]?.compaction?.softLimit ?? 0);
    expect(softTurns[11]?.compaction?.compressed).toBe('none');
    // Compression cuts what is compiled, never the checkpointed history.
    expect(softMessages.filter((message) => message.role === 'user')).toHaveLength(ETL_SCRIPT.length);
  });
});
