import type { ScriptedTurn } from '../../examples/etl/scripted-conversation.ts';

/** A generated turn plus its ground truth: the requirement sentences the user stated in it. */
export interface GeneratedTurn extends ScriptedTurn {
  requirements: string[];
}

const TABLES = [
  'orders',
  'payments',
  'refunds',
  'users',
  'coupons',
  'shipments',
  'sessions',
  'carts',
  'stores',
  'skus',
];
const COLUMNS = [
  'amount',
  'paid_amount',
  'user_id',
  'store_id',
  'coupon_id',
  'sku_id',
  'status',
  'channel',
  'region',
  'created_at',
];
const METRICS = ['GMV', '实付金额', '订单数', '客单价', '退款率', 'conversion rate', 'repeat rate'];
const CHAT = ['好的', '继续', 'thanks, looks fine so far', '收到', 'ok', '先这样', 'nice'];

/** A small deterministic PRNG (mulberry32), so every run replays the same session. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A scripted ETL session of `turns` user turns (default 200), mixing Chinese and English:
 * requirement statements addressed to each agent (with the agent's vocabulary, so the offline
 * router can find it), work requests that make agents produce long SQL, plans, tests and
 * analyses, and chit-chat. Each turn lists the requirement sentences it states, verbatim, as
 * ground truth for the "no requirement lost" check. Deterministic for a given seed.
 */
export function generateEtlSessionScript(options: { turns?: number; seed?: number } = {}): GeneratedTurn[] {
  const next = random(options.seed ?? 7);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const turns: GeneratedTurn[] = [];
  for (let index = 0; index < (options.turns ?? 200); index++) {
    const table = `${pick(['ods', 'dwd', 'dim'])}.${pick(TABLES)}_${index}`;
    const column = `${pick(COLUMNS)}_${index}`;
    const roll = next();
    if (roll < 0.12) {
      const sentence = `指标口径：${pick(METRICS)} 需要按 ${column} 汇总。`;
      turns.push({
        user: `${sentence}这是业务方确认过的。`,
        requirements: [sentence],
        reply: analysis(index, column),
      });
    } else if (roll < 0.24) {
      const sentence = `调度计划必须在每天 ${1 + (index % 6)} 点前完成，依赖 ${table} 分区就绪。`;
      turns.push({ user: sentence, requirements: [sentence], reply: plan(index, table) });
    } else if (roll < 0.36) {
      const sentence = `The SQL must join ${table} on ${column} and keep only status = 'paid'.`;
      turns.push({ user: `${sentence} Thanks!`, requirements: [sentence], reply: sql(index, table, column) });
    } else if (roll < 0.48) {
      const sentence = `验收测试：${table} 的 ${column} 不能为空，行数校验要和源表一致。`;
      turns.push({ user: sentence, requirements: [sentence], reply: test(index, table, column) });
    } else if (roll < 0.8) {
      const [agent, reply] = pick([
        ['SQL', sql(index, table, column)],
        ['测试', test(index, table, column)],
        ['调度计划', plan(index, table)],
        ['需求分析', analysis(index, column)],
      ] as const);
      turns.push({ user: `请更新一下${agent}的产出，第 ${index} 轮。`, requirements: [], reply });
    } else {
      turns.push({ user: `${pick(CHAT)} (${index})`, requirements: [] });
    }
  }
  return turns;
}

function sql(index: number, table: string, column: string): string {
  const lines = [
    `-- job: job_${index % 9}`,
    `INSERT OVERWRITE TABLE dw.result_${index % 9} PARTITION (dt)`,
    'SELECT',
  ];
  for (let line = 0; line < 24; line++) lines.push(`  coalesce(t.${column}_${line}, 0) AS metric_${line},`);
  lines.push('  t.dt', `FROM ${table} t`, `LEFT JOIN dim.users_${index} u ON t.user_id = u.id`);
  lines.push(`WHERE t.status = 'paid' AND t.dt >= date_sub(current_date, 90)`, 'GROUP BY t.dt;');
  return lines.join('\n');
}

function test(index: number, table: string, column: string): string {
  const lines = [`-- job: checks_${index % 7}`];
  for (let line = 0; line < 8; line++) {
    lines.push(
      `SELECT count(*) AS failures_${line} FROM ${table} WHERE ${column} IS NULL OR ${column}_${line} < 0;`,
    );
  }
  return lines.join('\n');
}

function plan(index: number, table: string): string {
  const jobs = Array.from({ length: 12 }, (_, job) => ({
    name: `job_${job}`,
    dependsOn: job === 0 ? [table] : [`job_${job - 1}`],
    schedule: `0 ${1 + (index % 6)} * * *`,
    partition: 'dt',
    retries: 3,
  }));
  return JSON.stringify({ version: index, jobs }, null, 2);
}

function analysis(index: number, column: string): string {
  const paragraphs = Array.from(
    { length: 6 },
    (_, paragraph) =>
      `### Finding ${paragraph + 1}\nThe metric aggregates ${column} per day; upstream data arrives by 01:00 and late records are merged on the next run. Round ${index}, note ${paragraph}: owners confirmed the definition and the edge cases around refunds, cancellations and currency conversion.`,
  );
  return `# Analysis v${index}\n${paragraphs.join('\n\n')}`;
}
