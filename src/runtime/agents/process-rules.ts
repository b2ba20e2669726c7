/**
 * What one kind of node may see (seed 000, "Process 级硬规则"):
 * - `history`: whether the checkpoint messages are compiled in;
 * - `enableShareContext`: whether shared `__context` layers are injected;
 * - `alwaysInclude`: shared layers injected even when sharing is off.
 */
export interface ProcessRule {
  role: ProcessRole;
  history: boolean;
  enableShareContext: boolean;
  alwaysInclude: readonly string[];
}

/** The node roles the processes use. */
export type ProcessRole =
  | 'agent'
  | 'react'
  | 'mapreduce-planner'
  | 'mapreduce-worker'
  | 'mapreduce-reducer'
  | 'dynamic'
  | 'manager'
  | 'sub-agent';

/** Options that adjust a rule where the seed allows it. */
export interface ProcessRuleOptions {
  /** The team-level share switch (seed 000's `enable_share_context`). Default true. */
  enableShareContext?: boolean;
  /** MapReduce workers only: also inject `knowledge__context` and `profile__context`. Default false. */
  workerKnowledge?: boolean;
}

/** The rule for `role`. Workers never see history and, by default, only `framework__context`. */
export function processRule(role: ProcessRole, options: ProcessRuleOptions = {}): ProcessRule {
  const share = options.enableShareContext ?? true;
  switch (role) {
    case 'mapreduce-worker':
      return {
        role,
        history: false,
        enableShareContext: false,
        alwaysInclude: options.workerKnowledge
          ? ['framework__context', 'profile__context', 'knowledge__context']
          : ['framework__context'],
      };
    case 'mapreduce-planner':
    case 'mapreduce-reducer':
      return { role, history: false, enableShareContext: share, alwaysInclude: ['framework__context'] };
    default:
      return { role, history: true, enableShareContext: share, alwaysInclude: ['framework__context'] };
  }
}
