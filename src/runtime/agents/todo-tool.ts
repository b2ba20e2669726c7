import { tool } from 'ai';
import { z } from 'zod';
import type { TodoSnapshot } from '../../state/index.ts';

/** Name of the tool {@link createTodoTool} returns; the node factory applies its payloads. */
export const TODO_TOOL_NAME = 'update_todo';

const todoInput = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      title: z.string(),
      status: z.enum(['pending', 'in_progress', 'done', 'blocked']),
      note: z.string().optional(),
    }),
  ),
});

/**
 * The TODO tool: the model sends the whole TODO list; the tool only validates and returns
 * it as its payload. The node factory applies the last payload with `todo.replace` — tools
 * never write state.
 */
export function createTodoTool() {
  return tool({
    description: 'Replace the task TODO list. Send every item with its status.',
    inputSchema: todoInput,
    execute: async (input): Promise<TodoSnapshot> => ({ items: input.items }),
  });
}

/** Parses a TODO payload (the tool's JSON output); undefined when it is not one. */
export function parseTodoPayload(value: unknown): TodoSnapshot | undefined {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  try {
    const parsed = todoInput.safeParse(JSON.parse(text));
    return parsed.success ? { items: parsed.data.items } : undefined;
  } catch {
    return undefined;
  }
}
