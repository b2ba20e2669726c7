import { createScriptedModel } from './scripted-model.ts';

/** One scripted turn: the user's words, the router's raw JSON (or text), the agent's reply. */
export interface ScriptedTurn {
  user: string;
  /** What the scripted router returns; omitted for turns that never reach the router. */
  route?: unknown;
  /** What the addressed agent answers; omitted when no agent runs. */
  reply?: string;
  /** What the scripted router returns when it reviews the n-th agent run of this turn (`# Review (hop n)`). */
  reviews?: readonly unknown[];
  /** What an agent answers when the commander sends the work back (a rework or a failed gate). */
  redo?: string;
}

const add = (type: string, priority: string, text: string, quote: string) => ({
  op: 'add',
  type,
  priority,
  text,
  quote,
});

/**
 * The example conversation: global facts, a low-confidence global proposal, an agent's
 * question and its deterministic answer, malformed and unsure router output, a metric change
 * that invalidates SQL, `/compress`, and work after it.
 */
export const ETL_SCRIPT: readonly ScriptedTurn[] = [
  {
    user: '我们要做一个订单日报：输出表必须是 dw.orders_daily，按 dt 分区。',
    route: {
      targetAgent: 'analyst',
      confidence: 0.92,
      actions: [
        {
          type: 'propose_global_delta',
          confidence: 0.9,
          ops: [
            add(
              'output',
              'must',
              'Output table dw.orders_daily, partitioned by dt',
              '输出表必须是 dw.orders_daily，按 dt 分区',
            ),
          ],
        },
      ],
    },
    reply: 'Analysis v1: output dw.orders_daily (G1), one row per dt. Waiting for the amount definition.',
  },
  {
    user: '金额口径用实付金额 paid_amount，不含退款。',
    route: {
      targetAgent: 'analyst',
      confidence: 0.88,
      actions: [
        {
          type: 'propose_global_delta',
          confidence: 0.9,
          ops: [
            add(
              'rule',
              'must',
              'Amount = paid_amount, refunds excluded',
              '金额口径用实付金额 paid_amount，不含退款',
            ),
          ],
        },
      ],
    },
    reply: 'Analysis v2: output dw.orders_daily (G1); amount = sum(paid_amount) without refunds (G2).',
  },
  {
    user: '调度每天凌晨两点，依赖 ods.orders 同步完成。',
    route: {
      targetAgent: 'planner',
      confidence: 0.9,
      actions: [
        {
          type: 'update_scoped_todo',
          ops: [add('constraint', 'must', 'Run daily at 02:00', '调度每天凌晨两点')],
        },
        {
          type: 'propose_global_delta',
          confidence: 0.6,
          ops: [add('input', 'must', 'Source table ods.orders', '依赖 ods.orders 同步完成')],
        },
      ],
    },
    reply: 'QUESTION: 历史数据需要回刷多少天？',
  },
  {
    user: '需要回刷最近 90 天。',
    reply: '{"jobs":["orders_daily"],"schedule":"0 2 * * *","backfillDays":90,"partition":"dt"}',
  },
  {
    user: 'SQL 里用 left join dim.users，字段 user_level 要带上。',
    route: {
      targetAgent: 'sql_developer',
      confidence: 0.9,
      actions: [
        {
          type: 'update_scoped_todo',
          ops: [
            add(
              'constraint',
              'must',
              'LEFT JOIN dim.users and keep user_level',
              'SQL 里用 left join dim.users，字段 user_level 要带上',
            ),
          ],
        },
      ],
    },
    reply: `-- job: orders_daily
INSERT OVERWRITE TABLE dw.orders_daily PARTITION (dt)
SELECT u.user_level, sum(o.paid_amount) AS amount, o.dt
FROM ods.orders o LEFT JOIN dim.users u ON o.user_id = u.id
WHERE o.refund_flag = 0
GROUP BY u.user_level, o.dt;`,
  },
  { user: '嗯，这个怎么样？', route: 'I think the analyst, maybe.' },
  { user: '那个表再看看', route: { targetAgent: 'sql_developer', confidence: 0.45, actions: [] } },
  {
    user: 'The tester must check that paid_amount is never null and row counts match ods.orders.',
    route: {
      targetAgent: 'tester',
      confidence: 0.93,
      actions: [
        {
          type: 'update_scoped_todo',
          ops: [
            add(
              'acceptance',
              'must',
              'paid_amount never null; row counts match ods.orders',
              'The tester must check that paid_amount is never null and row counts match ods.orders',
            ),
          ],
        },
      ],
    },
    reply: `-- job: orders_daily_checks
SELECT count(*) AS null_amounts FROM dw.orders_daily WHERE amount IS NULL;
SELECT count(*) FROM ods.orders;`,
  },
  {
    user: '不含退款这条取消，退款也要算进去。',
    route: {
      targetAgent: 'analyst',
      confidence: 0.86,
      actions: [
        {
          type: 'propose_global_delta',
          confidence: 0.88,
          ops: [
            { op: 'cancel', id: 'G2', quote: '不含退款这条取消' },
            add('rule', 'must', 'Amount = paid_amount including refunds', '退款也要算进去'),
          ],
        },
      ],
    },
    reply: 'Analysis v3: amount = sum(paid_amount) including refunds (G3); G2 cancelled.',
  },
  {
    user: '按新口径重写 SQL 脚本。',
    route: {
      targetAgent: 'sql_developer',
      confidence: 0.9,
      actions: [
        {
          type: 'invalidate_artifact',
          artifactId: 'sql_job:orders_daily',
          reason: 'metric changed: G2 cancelled, G3 added',
        },
      ],
    },
    reply: `-- job: orders_daily
INSERT OVERWRITE TABLE dw.orders_daily PARTITION (dt)
SELECT u.user_level, sum(o.paid_amount) AS amount, o.dt
FROM ods.orders o LEFT JOIN dim.users u ON o.user_id = u.id
GROUP BY u.user_level, o.dt;`,
  },
  { user: '/compress' },
  {
    user: '再加一个验收：dt 分区必须每天都有数据。',
    route: {
      targetAgent: 'tester',
      confidence: 0.9,
      actions: [
        {
          type: 'update_scoped_todo',
          ops: [add('acceptance', 'must', 'Every dt partition has rows', 'dt 分区必须每天都有数据')],
        },
      ],
    },
    reply: `-- job: orders_daily_checks
SELECT dt FROM dw.orders_daily GROUP BY dt HAVING count(*) = 0;`,
  },
];

/**
 * A scripted model that plays both the router (structured calls) and the agents (text calls)
 * for {@link ETL_SCRIPT}: it finds the turn whose user text ends the prompt.
 */
export function createScriptedEtlModel(script: readonly ScriptedTurn[] = ETL_SCRIPT) {
  return createScriptedModel(({ prompt, json }) => {
    const turn = [...script].reverse().find((candidate) => prompt.trimEnd().endsWith(candidate.user));
    const review = /^# Review \(hop (\d+)\)$/mu.exec(prompt)?.[1];
    if (turn !== undefined && json && review !== undefined) {
      return JSON.stringify(turn.reviews?.[Number(review) - 1] ?? {});
    }
    if (turn === undefined) {
      // Sent back by the commander: the prompt ends with its task, after the turn's user text.
      const current = [...script].reverse().find((candidate) => prompt.includes(candidate.user));
      if (!json && current?.redo !== undefined && /^(Rework |The gate failed)/mu.test(prompt))
        return current.redo;
      return json ? '{}' : 'I have nothing scripted for that.';
    }
    if (json) return typeof turn.route === 'string' ? turn.route : JSON.stringify(turn.route ?? {});
    return turn.reply ?? 'OK.';
  });
}
