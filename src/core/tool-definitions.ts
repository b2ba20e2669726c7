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
  const text = JSON.stringify({
    name: tool.name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    parameters: tool.inputSchema ?? {},
  });
  texts.set(tool, { name: tool.name, description: tool.description, inputSchema: tool.inputSchema, text });
  return text;
}
