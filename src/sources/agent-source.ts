import { type CollectRequest, type ContextSource, createBlock } from '../core/index.ts';

/** The agent's own working state. */
export interface AgentState {
  /** Who the agent is in this process, e.g. `researcher (worker 2 of 4)`. */
  role?: string;
  goal?: string;
  plan?: ReadonlyArray<{ step: string; status: 'pending' | 'in-progress' | 'done' | 'failed' }>;
  /** Short working notes the agent keeps. */
  notes?: readonly string[];
}

/** Options of {@link createAgentSource}. */
export interface AgentSourceOptions {
  /** Reads the state (from the Blackboard, a store, …) on every collect. */
  state: (request: CollectRequest) => AgentState | undefined | Promise<AgentState | undefined>;
  /** Budget key; default `agent`. */
  name?: string;
  /** Default `todo__context`. */
  layer?: string;
  /** 0..1, default 0.9. */
  priority?: number;
}

const MARK = { pending: '[ ]', 'in-progress': '[~]', done: '[x]', failed: '[!]' } as const;

/**
 * Seed 001's `agent` source. Reads the agent's state — role, goal, plan steps with status,
 * notes — and fills `todo__context` with one block: `Role`, `Goal`, the plan as a checklist
 * (`[x]` done, `[~]` in progress, `[ ]` pending, `[!]` failed) and notes. When it does not fit,
 * it sheds in order: notes, done steps (replaced by a count), then pending steps beyond the
 * next three; if even that does not fit it returns nothing.
 */
export function createAgentSource(options: AgentSourceOptions): ContextSource {
  const name = options.name ?? 'agent';
  const layer = options.layer ?? 'todo__context';
  return {
    name,
    layer,
    priority: options.priority ?? 0.9,
    async collect(request, budget) {
      const state = await options.state(request);
      if (state === undefined) return [];
      const plan = state.plan ?? [];
      const done = plan.filter((step) => step.status === 'done').length;
      const attempts = [
        render(state, plan, state.notes ?? []),
        render(state, plan, []),
        render(
          state,
          plan.filter((step) => step.status !== 'done'),
          [],
          done,
        ),
        render(state, trimPending(plan.filter((step) => step.status !== 'done')), [], done),
      ];
      for (const content of attempts) {
        if (content.length === 0) return [];
        const block = createBlock(
          {
            id: `${name}:state`,
            layer,
            source: name,
            content,
            priority: 0.9,
            metadata: { steps: plan.length, done },
          },
          request.counter,
        );
        if (block.tokens <= budget.maxTokens) return [block];
      }
      return [];
    },
  };
}

function render(
  state: AgentState,
  plan: AgentState['plan'] & {},
  notes: readonly string[],
  hiddenDone = 0,
): string {
  const lines: string[] = [];
  if (state.role !== undefined) lines.push(`Role: ${state.role}`);
  if (state.goal !== undefined) lines.push(`Goal: ${state.goal}`);
  if (plan.length > 0 || hiddenDone > 0) {
    lines.push('Plan:');
    if (hiddenDone > 0) lines.push(`(${hiddenDone} steps done)`);
    for (const step of plan) lines.push(`${MARK[step.status]} ${step.step}`);
  }
  if (notes.length > 0) lines.push('Notes:', ...notes.map((note) => `- ${note}`));
  return lines.join('\n');
}

function trimPending(plan: AgentState['plan'] & {}): AgentState['plan'] & {} {
  let pending = 0;
  return plan.filter((step) => step.status !== 'pending' || ++pending <= 3);
}
