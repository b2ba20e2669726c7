import type { AgentDescriptor } from '../../src/routing/index.ts';

/** Two of the ETL example's agents, as the router and the commander see them. */
export const agents: AgentDescriptor[] = [
  {
    id: 'analyst',
    scope: 'Requirement analysis: business goal, metric definitions (口径), acceptance (需求分析)',
    allowedActions: ['update_scoped_todo', 'propose_global_delta', 'request_clarification'],
    keywords: ['需求', '口径', '指标', 'metric', 'definition', 'requirement'],
  },
  {
    id: 'sql_developer',
    scope: 'Writes and fixes SQL jobs (写 SQL 脚本 字段 关联)',
    allowedActions: ['update_scoped_todo', 'request_clarification', 'invalidate_artifact'],
    keywords: ['sql', 'join', 'select', 'insert', '字段', '关联', '脚本'],
  },
];
