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
 * differently; this is the one rule ctxloom budgets and reports with.
 */
export function countToolDefinitions(tools: readonly ToolDefinition[], counter: TokenCounter): number {
  let total = 0;
  for (const tool of tools) total += counter.countText(toolDefinitionText(tool));
  return total;
}

/** The text a tool definition is counted as. */
export function toolDefinitionText(tool: ToolDefinition): string {
  return JSON.stringify({
    name: tool.name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    parameters: tool.inputSchema ?? {},
  });
}
