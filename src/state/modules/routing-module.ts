import type { AgentStatus, FailureKind } from '../types.ts';
import { current, type ModuleContext } from './module-context.ts';

/** Snapshot of the routing module: who runs, on what, and how the last run ended. */
export interface RoutingSnapshot {
  activeAgent: string | null;
  assignedTask: string | null;
  lastAgentStatus: AgentStatus | null;
  lastAgentFailureKind: FailureKind | null;
  lastAgentError: string | null;
}

/** Routing fields: `active_agent`, `assigned_task`, `last_agent_*`. */
export class RoutingModule {
  readonly #context: ModuleContext;

  constructor(context: ModuleContext) {
    this.#context = context;
  }

  /** Active agent, assigned task and how the last agent run ended. */
  snapshot(): RoutingSnapshot {
    return {
      activeAgent: current(this.#context, 'active_agent', null),
      assignedTask: current(this.#context, 'assigned_task', null),
      lastAgentStatus: current(this.#context, 'last_agent_status', null),
      lastAgentFailureKind: current(this.#context, 'last_agent_failure_kind', null),
      lastAgentError: current(this.#context, 'last_agent_error', null),
    };
  }

  /** Makes `agentId` the active agent. */
  activate(agentId: string): void {
    this.#context.buffer.set('active_agent', agentId);
  }

  /** Sets the task the active agent works on. */
  assignTask(text: string): void {
    this.#context.buffer.set('assigned_task', text);
  }

  /** Records how the active agent ended, and clears `active_agent` and `assigned_task`. */
  finishAgent(options: { status: AgentStatus; failureKind?: FailureKind; error?: string }): void {
    const { buffer } = this.#context;
    buffer.set('last_agent_status', options.status);
    buffer.set('last_agent_failure_kind', options.failureKind ?? null);
    buffer.set('last_agent_error', options.error ?? null);
    buffer.set('active_agent', null);
    buffer.set('assigned_task', null);
  }
}
