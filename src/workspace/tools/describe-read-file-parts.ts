/** The header `read_file` puts before the lines it returns (see `readFileTool`). */
const HEADER = /^(.+) \(lines (\d+)-(\d+) of (\d+)\)\n/u;

/**
 * How to read part of a `read_file` output kept as an artifact, for its placeholder
 * (`ToolResultPolicy.describeParts`): a `read_file` call for the first half of the lines it
 * returned, with the file's length and the tokens a line takes. Undefined for other outputs.
 * @example
 * toolResults: { store, describeParts: describeReadFileParts }
 */
export function describeReadFileParts(output: {
  toolName: string;
  content: string;
  tokens: number;
}): string | undefined {
  if (output.toolName !== 'read_file') return undefined;
  const match = HEADER.exec(output.content);
  if (match === null) return undefined;
  const [, path, from, to, total] = match as unknown as [string, string, string, string, string];
  const startLine = Number(from);
  const lines = Number(to) - startLine + 1;
  if (lines < 2) return undefined;
  const endLine = startLine + Math.ceil(lines / 2) - 1;
  const perLine = Math.ceil(output.tokens / lines);
  const call = JSON.stringify({ path, startLine, endLine });
  return `call read_file with ${call} for a line range (${total} lines in all, about ${perLine} tokens a line)`;
}
