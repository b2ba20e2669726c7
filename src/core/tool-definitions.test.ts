import { describe, expect, it } from 'vitest';
import { createCharCounter } from '../testing/char-counter.ts';
import { compileContext } from './compile.ts';
import { CtxloomError } from './errors.ts';
import type { ToolDefinition } from './tool-definitions.ts';

const counter = createCharCounter();
const schema = { type: 'object', properties: { path: { type: 'string' } } };

async function errorOf(tools: unknown[]): Promise<unknown> {
  return compileContext({ query: 'q' }, { counter, window: 4000, tools: tools as ToolDefinition[] }).then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('the tool definitions of a compile', () => {
  it('are counted as the JSON a provider sends, each once', async () => {
    const tools = [
      { name: 'read_file', description: 'Reads a file.', inputSchema: schema },
      { name: 'list_files', inputSchema: schema },
    ];
    const { report } = await compileContext({ query: 'q' }, { counter, window: 4000, tools });
    const texts = [
      JSON.stringify({ name: 'read_file', description: 'Reads a file.', parameters: schema }),
      JSON.stringify({ name: 'list_files', parameters: schema }),
    ];
    expect(report.tools?.definitions?.map((tool) => tool.tokens)).toEqual(texts.map((text) => text.length));
  });

  it('refuse a tool without a name, naming its position', async () => {
    const error = await errorOf([{ name: 'read_file', inputSchema: schema }, { inputSchema: schema }]);
    expect(CtxloomError.is(error, 'invalid-argument')).toBe(true);
    expect((error as CtxloomError).path).toBe('tools.1.name');
  });

  it('refuse a name used twice (providers refuse it)', async () => {
    const error = await errorOf([
      { name: 'read_file', inputSchema: schema },
      { name: 'read_file', description: 'again', inputSchema: schema },
    ]);
    expect(CtxloomError.is(error, 'invalid-argument')).toBe(true);
    expect((error as CtxloomError).message).toBe(
      'tool name "read_file" is used by two tools; names must be unique (at tools.1.name)',
    );
  });

  it('refuse a schema JSON cannot hold, naming the tool, with the cause', async () => {
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.self = cyclic;
    const error = await errorOf([{ name: 'loop', inputSchema: cyclic }]);
    expect(CtxloomError.is(error, 'invalid-argument')).toBe(true);
    expect((error as CtxloomError).path).toBe('tools.loop.inputSchema');
    expect((error as CtxloomError).cause).toBeInstanceOf(TypeError);
  });
});
