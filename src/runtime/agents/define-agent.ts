import type { LanguageModel, ToolSet } from 'ai';
import { CtxloomError } from '../../core/errors.ts';
import type { ContextSource } from '../../core/source.ts';
import type { Summarizer } from '../../core/summarizer.ts';

/** An agent: a role with a private system prompt, tools and a model. */
export interface AgentDefinition {
  /** Unique within a process; used as node name, deliverable key and message-id prefix. */
  id: string;
  /** The private `system` layer (never shared with other agents). */
  systemPrompt: string;
  /** AI SDK tools. Tools return payloads; only nodes write state. Default none. */
  tools: ToolSet;
  /** An AI SDK `LanguageModel` (a provider model, the offline model, or `MockLanguageModelV4`). */
  model: LanguageModel;
  /** Framework rules and output contract for this agent (`framework__context`). Default none. */
  framework?: string;
  /** Extra context sources (retrieval, workspace blocks…) compiled into this agent's input. */
  sources?: readonly ContextSource[];
  /** Context window of the model in tokens. Default 128 000. */
  window: number;
  /** Most model steps per turn when tools are called (AI SDK `stopWhen`). Default 5, range 1..50. */
  maxSteps: number;
  /** Whether a completed run records a deliverable under the agent id. Default false. */
  deliverable: boolean;
  /**
   * Summarises history that leaves the window into `compression__context`, persisted with the
   * run it covers (later calls skip it, not summarise it again). Default none: an omission notice.
   */
  summarizer?: Summarizer;
}

/** Input of {@link defineAgent}: optional fields take the defaults documented on {@link AgentDefinition}. */
export type AgentInput = Pick<AgentDefinition, 'id' | 'systemPrompt' | 'model'> &
  Partial<Omit<AgentDefinition, 'id' | 'systemPrompt' | 'model'>>;

/**
 * Defines an agent.
 *
 * @example
 * ```ts
 * const writer = defineAgent({ id: 'writer', systemPrompt: 'You write release notes.', model });
 * const graph = sequential({ agents: [researcher, writer] }).compile({ checkpointer });
 * ```
 */
export function defineAgent(input: AgentInput): AgentDefinition {
  if (!/^[A-Za-z][\w-]{0,63}$/.test(input.id)) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `agent id "${input.id}" must start with a letter and use letters, digits, _ or - (≤ 64)`,
      path: 'id',
    });
  }
  const maxSteps = input.maxSteps ?? 5;
  if (!Number.isInteger(maxSteps) || maxSteps < 1 || maxSteps > 50) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: 'maxSteps must be an integer in 1..50',
      path: 'maxSteps',
    });
  }
  return {
    id: input.id,
    systemPrompt: input.systemPrompt,
    tools: input.tools ?? {},
    model: input.model,
    ...(input.framework === undefined ? {} : { framework: input.framework }),
    ...(input.sources === undefined ? {} : { sources: input.sources }),
    ...(input.summarizer === undefined ? {} : { summarizer: input.summarizer }),
    window: input.window ?? 128_000,
    maxSteps,
    deliverable: input.deliverable ?? false,
  };
}
