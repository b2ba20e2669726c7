import { CtxloomError } from './errors.ts';
import type { TokenCounter } from './tokens.ts';

/** A tool the model may call, as sent with the request: name, description and JSON schema. */
export interface ToolDefinition {
  name: string;
  description?: string;
  /** The tool's input as a JSON schema object. */
  inputSchema: unknown;
}

/**
 * Tokens the tool definitions add to a request: each definition is counted as the JSON a
 * provider sends (`{"name","description","parameters"}`). Providers frame tools slightly
 * differently; this is the one rule ctxloom budgets and reports with. A definition without a
 * name, a name used twice (providers refuse both) or a schema JSON cannot hold (a cycle, a
 * BigInt) is an `invalid-argument` error naming the tool.
 */
export function countToolDefinitions(tools: readonly ToolDefinition[], counter: TokenCounter): number {
  let total = 0;
  const names = new Set<string>();
  for (const [index, tool] of tools.entries()) {
    if (typeof tool?.name !== 'string' || tool.name === '')
      throw invalidTool(`tools.${index}.name`, `tool ${index} needs a non-empty string name`);
    if (names.has(tool.name))
      throw invalidTool(
        `tools.${index}.name`,
        `tool name "${tool.name}" is used by two tools; names must be unique`,
      );
    names.add(tool.name);
    total += counter.countText(toolDefinitionText(tool));
  }
  return total;
}

function invalidTool(path: string, message: string, cause?: unknown): CtxloomError {
  return new CtxloomError({
    code: 'invalid-argument',
    message,
    path,
    ...(cause === undefined ? {} : { cause }),
  });
}

interface DefinitionText {
  name: string;
  description: string | undefined;
  inputSchema: unknown;
  text: string;
}

/** By definition: its text, reused while name, description and schema (by identity) are unchanged. */
const texts = new WeakMap<ToolDefinition, DefinitionText>();

/** The text a tool definition is counted as. */
export function toolDefinitionText(tool: ToolDefinition): string {
  const known = texts.get(tool);
  if (
    known !== undefined &&
    known.name === tool.name &&
    known.description === tool.description &&
    known.inputSchema === tool.inputSchema
  ) {
    return known.text;
  }
  let text: string;
  try {
    text = JSON.stringify({
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      parameters: tool.inputSchema ?? {},
    });
  } catch (error) {
    throw invalidTool(
      `tools.${tool.name}.inputSchema`,
      `the schema of tool "${tool.name}" is not JSON`,
      error,
    );
  }
  texts.set(tool, { name: tool.name, description: tool.description, inputSchema: tool.inputSchema, text });
  return text;
}
