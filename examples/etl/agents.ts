import type { AgentDescriptor } from '../../src/routing/index.ts';

/** One ETL agent: what the router sees, the artifact kind it produces and its system prompt. */
export interface EtlAgent extends AgentDescriptor {
  /** Kind under which its replies are registered in the artifact index. */
  artifactKind: 'analysis' | 'plan' | 'sql_job' | 'test';
  systemPrompt: string;
}

/** The four agents of the ETL example (seed 004). */
export const ETL_AGENTS: readonly EtlAgent[] = [
  {
    id: 'analyst',
    scope:
      'Requirement analysis: business goal, source and target tables, metric definitions (口径), 需求分析',
    allowedActions: ['update_scoped_todo', 'propose_global_delta', 'request_clarification', 'rework', 'gate'],
    keywords: ['需求', '口径', '指标', '业务', 'metric', 'definition', 'business', 'analysis', 'requirement'],
    artifactKind: 'analysis',
    systemPrompt:
      'You are the requirements analyst of an ETL team. Restate the requirements as a short analysis: inputs, outputs, metric definitions, acceptance. Cite requirement ids.',
  },
  {
    id: 'planner',
    scope: 'ETL plan: job breakdown, schedule, dependencies, partitions (调度 计划 依赖 分区)',
    allowedActions: [
      'update_scoped_todo',
      'propose_global_delta',
      'request_clarification',
      'invalidate_artifact',
      'rework',
      'gate',
    ],
    keywords: ['计划', '调度', '依赖', '分区', 'schedule', 'plan', 'dependency', 'cron', 'partition'],
    artifactKind: 'plan',
    systemPrompt:
      'You are the ETL planner. Produce a job plan (jobs, order, schedule, partitions) as JSON. Ask the user with a line starting "QUESTION:" when a decision is missing.',
  },
  {
    id: 'sql_developer',
    scope: 'Writes and fixes SQL jobs and workflows (写 SQL 脚本 字段 关联)',
    allowedActions: ['update_scoped_todo', 'request_clarification', 'invalidate_artifact', 'rework', 'gate'],
    keywords: ['sql', 'join', 'select', 'insert', '字段', '关联', 'column', 'query', '脚本', 'script'],
    artifactKind: 'sql_job',
    systemPrompt:
      'You are the SQL developer. Write the SQL job that meets the requirements. Output SQL only.',
  },
  {
    id: 'tester',
    scope: 'Data tests and acceptance checks: row counts, nulls, reconciliation (测试 验收 校验)',
    allowedActions: ['update_scoped_todo', 'request_clarification', 'rework', 'gate'],
    keywords: ['测试', '验收', '校验', '空值', 'test', 'null', 'reconcile', 'check', 'acceptance'],
    artifactKind: 'test',
    systemPrompt: 'You are the data tester. Write SQL checks for every acceptance requirement.',
  },
];
