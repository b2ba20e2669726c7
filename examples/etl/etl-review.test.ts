import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCheckpointSessionStore } from '../../src/session/index.ts';
import { openEtlSession, playScript } from './run.ts';
import type { ScriptedTurn } from './scripted-conversation.ts';

const dir = mkdtempSync(join(tmpdir(), 'ctxloom-etl-review-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SQL_V1 = `-- job: orders_daily
INSERT OVERWRITE TABLE dw.orders_daily PARTITION (dt)
SELECT sum(o.paid_amount) AS amount, o.dt FROM ods.orders o WHERE o.refund_flag = 0 GROUP BY o.dt;`;
const SQL_V2 = `-- job: orders_daily
INSERT OVERWRITE TABLE dw.orders_daily PARTITION (dt)
SELECT sum(o.paid_amount) AS amount, o.dt FROM ods.orders o GROUP BY o.dt;`;

/** A metric fact, then SQL that the commander sends back once and then lets through the gate. */
const SCRIPT: ScriptedTurn[] = [
  {
    user: '订单日报：金额口径用实付金额 paid_amount，退款也要算进去。',
    route: {
      targetAgent: 'analyst',
      confidence: 0.9,
      actions: [
        {
          type: 'propose_global_delta',
          confidence: 0.9,
          ops: [
            {
              op: 'add',
              type: 'rule',
              priority: 'must',
              text: 'Amount = paid_amount including refunds',
              quote: '金额口径用实付金额 paid_amount，退款也要算进去',
            },
          ],
        },
      ],
    },
    reply: 'Analysis v1: amount = sum(paid_amount) including refunds (G1).',
    // The analyst's work is not judged: the review names nothing, so the turn ends.
    reviews: [{ targetAgent: 'analyst', confidence: 0.9, actions: [] }],
  },
  {
    user: '写 SQL 脚本，输出 dw.orders_daily。',
    route: { targetAgent: 'sql_developer', confidence: 0.9, actions: [] },
    reply: SQL_V1,
    redo: SQL_V2,
    reviews: [
      {
        targetAgent: 'sql_developer',
        confidence: 0.9,
        actions: [
          {
            type: 'rework',
            agentId: 'sql_developer',
            artifactId: 'sql_job:orders_daily',
            reason: 'refund_flag = 0 drops refunds, G1 says they count',
          },
        ],
      },
      {
        targetAgent: 'tester',
        confidence: 0.9,
        actions: [{ type: 'gate', verdict: 'pass', requirementIds: ['G1'], reason: 'refunds are counted' }],
      },
    ],
  },
  {
    user: '再检查一下 SQL。',
    route: { targetAgent: 'sql_developer', confidence: 0.9, actions: [] },
    reply: SQL_V2,
    // A review naming an artifact that does not exist: refused as a whole, nothing runs again.
    reviews: [
      {
        targetAgent: 'sql_developer',
        confidence: 0.9,
        actions: [
          { type: 'invalidate_artifact', artifactId: 'sql_job:orders_daily', reason: 'stale' },
          { type: 'rework', agentId: 'sql_developer', artifactId: 'sql_job:orders_weekly', reason: 'x' },
        ],
      },
    ],
  },
];

describe('the ETL commander reviewing agents’ work (rework, then a gate pass)', async () => {
  const { session, saver, scripted } = await openEtlSession({
    path: join(dir, 'review.db'),
    script: SCRIPT,
    review: true,
  });
  const turns = await playScript(session, SCRIPT);
  const state = await session.state();
  const store = createCheckpointSessionStore({ saver, threadIdOf: () => session.threadId });
  const calls = await store.listCalls('etl');
  await saver.close();
  const sqlTurn = turns[1];

  it('runs the SQL developer again on the rework, then ends the turn on the gate pass', () => {
    expect(turns.map((turn) => turn.commander?.target)).toEqual([
      'analyst',
      'sql_developer',
      'sql_developer',
    ]);
    expect(turns[0]?.reviews?.map((review) => `${review.next} ${review.target}`)).toEqual(['agent null']);
    expect(sqlTurn?.reviews).toEqual([
      expect.objectContaining({
        next: 'rework',
        target: 'sql_developer',
        actions: ['rework:applied'],
        actionMessages: [
          'sql_developer redoes sql_job:orders_daily: refund_flag = 0 drops refunds, G1 says they count',
        ],
      }),
      expect.objectContaining({ next: 'gate', target: null, actions: ['gate:applied'] }),
    ]);
    expect(sqlTurn?.reply).toBe('Gate passed (G1): refunds are counted');
    // Two SQL-developer calls in that turn: the first answer and the rework, whose query is the task.
    const agentPrompts = (scripted?.calls ?? []).filter((call) => !call.json).map((call) => call.prompt);
    expect(agentPrompts).toHaveLength(4);
    expect(agentPrompts[2]).toMatch(
      /Rework sql_job:orders_daily: refund_flag = 0 drops refunds, G1 says they count\s*$/u,
    );
  });

  it('invalidates the reworked version and indexes the new one', () => {
    const artifacts = state.artifacts.index.artifacts.filter((entry) => entry.kind === 'sql_job');
    expect(artifacts.map((entry) => `${entry.id}:${entry.status}`)).toEqual([
      'sql_job:orders_daily@v1:invalidated',
      'sql_job:orders_daily@v2:active',
    ]);
    expect(artifacts[0]?.invalidation?.reason).toBe(
      'rework by sql_developer: refund_flag = 0 drops refunds, G1 says they count',
    );
    expect(state.artifacts.contents['sql_job:orders_daily@v2']).toBe(SQL_V2);
  });

  it('refuses a review naming an unknown artifact as a whole: nothing invalidated, nobody runs again', () => {
    const last = turns[2];
    expect(last?.reviews).toEqual([
      expect.objectContaining({
        next: 'clarify',
        reason: 'invalid-action',
        target: null,
        actions: ['invalidate_artifact:rolled-back', 'rework:rejected'],
      }),
    ]);
    expect(last?.reply).toBe(SQL_V2);
    // The same SQL again is the same version (content-addressed), and the refused
    // invalidate_artifact left it active.
    expect(
      state.artifacts.index.artifacts.find((entry) => entry.id === 'sql_job:orders_daily@v2')?.status,
    ).toBe('active');
    const refused = calls.filter((call) => call.turnId === last?.userMessage.id && call.decision?.review);
    expect(refused.map((call) => call.decision?.actions[1])).toEqual([
      expect.objectContaining({ status: 'rejected', code: 'not-found', path: 'actions.1.artifactId' }),
    ]);
  });

  it('logs every router call of the turn with the decision it led to', () => {
    const turnCalls = calls.filter((call) => call.turnId === sqlTurn?.userMessage.id);
    expect(turnCalls.map((call) => `${call.agentId}:${call.step}`)).toEqual([
      'router:0',
      'sql_developer:0',
      'router:1',
      'sql_developer:0',
      'router:2',
    ]);
    const decisions = turnCalls.flatMap((call) => (call.decision === undefined ? [] : [call.decision]));
    expect(decisions).toEqual([
      expect.objectContaining({ outcome: 'routed', review: false, next: 'agent', target: 'sql_developer' }),
      expect.objectContaining({
        review: true,
        next: 'rework',
        target: 'sql_developer',
        rework: {
          agentId: 'sql_developer',
          artifactId: 'sql_job:orders_daily',
          reason: 'refund_flag = 0 drops refunds, G1 says they count',
        },
      }),
      expect.objectContaining({
        review: true,
        next: 'gate',
        target: null,
        gate: { verdict: 'pass', requirementIds: ['G1'], reason: 'refunds are counted' },
        actions: [{ type: 'gate', status: 'applied', message: 'pass G1: refunds are counted' }],
      }),
    ]);
  });
});
