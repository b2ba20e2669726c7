import { describe, expect, it } from 'vitest';
import { messageText } from '../../src/core/index.ts';
import { runEtlExample } from './run.ts';

describe('ETL example (scripted model)', async () => {
  const { session, turns } = await runEtlExample();
  const state = await session.state();
  const messages = session.messages();

  it('routes, resumes, clarifies and runs /compress in the scripted order', () => {
    expect(
      turns.map((turn) =>
        turn.outcome.type === 'clarification' ? `clarification:${turn.outcome.reason}` : turn.outcome.type,
      ),
    ).toEqual([
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

  it('anchors every requirement to a user message it quotes verbatim', () => {
    const snapshots = [state.requirements.global, ...Object.values(state.requirements.scoped)];
    const anchors = snapshots.flatMap((snapshot) => snapshot.items.flatMap((item) => item.evidence));
    expect(anchors.length).toBeGreaterThanOrEqual(8);
    for (const anchor of anchors) {
      const message = messages.find((candidate) => candidate.id === anchor.messageId);
      expect(message?.role).toBe('user');
      expect(messageText(message!)).toContain(anchor.quote);
      expect(anchor.messageId).toBe(`u${anchor.turnIndex}`);
    }
  });

  it('answers the planner’s question deterministically, without asking the router', () => {
    expect(turns[2]?.request).toMatchObject({ id: 'r1', createdBy: 'planner', kind: 'human' });
    expect(session.pendingRequests()[0]?.status).toBe('answered');
    expect(turns[3]?.outcome).toMatchObject({ type: 'resume', targetAgent: 'planner' });
  });

  it('indexes agent outputs by version and keeps SQL out of the index', () => {
    const artifacts = state.artifacts.index.artifacts.map((entry) => `${entry.id}:${entry.status}`);
    expect(artifacts).toContain('sql_job:orders_daily@v1:invalidated');
    expect(artifacts).toContain('sql_job:orders_daily@v2:active');
    expect(JSON.stringify(state.artifacts.index)).not.toContain('refund_flag');
    expect(state.artifacts.contents['sql_job:orders_daily@v1']).toContain('refund_flag');
  });

  it('gives every agent the TODO and artifact views in todo__context', () => {
    const payloads = turns.flatMap((turn) => (turn.prepared === undefined ? [] : [turn.prepared.messages]));
    expect(payloads).toHaveLength(9);
    for (const payload of payloads) {
      expect(payload.some((message) => messageText(message).includes('## Requirements (global)'))).toBe(true);
    }
    const last = payloads.at(-1)!.map(messageText).join('\n');
    expect(last).toContain('tester#2');
    expect(last).toContain('sql_job:orders_daily@v2');
  });

  it('turns on clipping for the rest of the session after /compress', () => {
    expect(state.forceContextClipping).toBe(true);
    expect(state.clippingScope).toBe('all');
    expect(turns[11]?.prepared?.trigger.level).toBe('none');
  });
});

describe('ETL example with a small window', async () => {
  const { turns } = await runEtlExample({ window: 1400 });

  it('clips the payloads after /compress below the soft limit, dropping the oldest turns', () => {
    const last = turns[11]?.prepared;
    expect(last?.clippedIds.length).toBeGreaterThan(0);
    expect(last?.clippedIds[0]).toBe('u0');
    expect(last?.trigger.tokens).toBeLessThan(last?.trigger.softLimit ?? 0);
    expect(turns.slice(0, 10).every((turn) => (turn.prepared?.clippedIds.length ?? 0) === 0)).toBe(true);
  });
});
