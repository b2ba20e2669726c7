import type { AgentDescriptor } from './router-input.ts';

/** Test support: the four ETL agents with their scopes and allowed actions. */
export const ETL_AGENTS: AgentDescriptor[] = [
  {
    id: 'analyst',
    scope:
      'Requirement analysis: business goals, source and target tables, metric definitions (口径), 需求分析',
    allowedActions: ['update_scoped_todo', 'propose_global_delta', 'request_clarification'],
    keywords: ['需求', '口径', '指标', 'metric', 'definition', 'business'],
  },
  {
    id: 'planner',
    scope: 'ETL plan: job breakdown, schedule, dependencies, partitions, 调度 计划',
    allowedActions: [
      'update_scoped_todo',
      'propose_global_delta',
      'request_clarification',
      'invalidate_artifact',
    ],
    keywords: ['计划', '调度', '依赖', 'schedule', 'plan', 'dependency', 'cron'],
  },
  {
    id: 'sql_developer',
    scope: 'Writes and fixes SQL jobs and workflows, 写 SQL 脚本',
    allowedActions: ['update_scoped_todo', 'request_clarification', 'invalidate_artifact'],
    keywords: ['sql', 'join', 'select', 'insert', '字段', 'column', 'query'],
  },
  {
    id: 'tester',
    scope: 'Data tests and acceptance checks: row counts, nulls, reconciliation, 测试 验收',
    allowedActions: ['update_scoped_todo', 'request_clarification'],
    keywords: ['测试', '验收', '校验', 'test', 'null', 'reconcile', 'check'],
  },
];
