import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBufferIo } from '../io.ts';
import { main } from '../main.ts';

const example = fileURLToPath(new URL('../../../examples/notebook', import.meta.url));
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ctxloom-cli-conventions-'));
  await cp(example, root, { recursive: true });
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const capture = () => createBufferIo({ color: false, cwd: root });

interface Report {
  outputReserve: number;
  tools?: { names: string[] };
}

describe('ctxloom compile --format openai|anthropic', () => {
  it('prints the whole OpenAI request body: model, messages, the tools the chat offers, the output limit', async () => {
    const json = capture();
    expect(await main(['compile', 'raft-consensus'], json.io)).toBe(0);
    const report = (JSON.parse(json.out()) as { report: Report }).report;
    const run = capture();
    expect(await main(['compile', 'raft-consensus', '--format', 'openai'], run.io)).toBe(0);
    const body = JSON.parse(run.out()) as {
      model: string;
      messages: unknown[];
      tools: { type: string; function: { name: string; parameters: { type: string } } }[];
      max_tokens: number;
    };
    expect(body.model).toBe('gpt-4o');
    expect(body.messages.length).toBeGreaterThan(1);
    expect(body.tools.map((tool) => tool.function.name)).toEqual(report.tools?.names);
    expect(body.tools.map((tool) => tool.function.name)).toContain('read_file');
    expect(
      body.tools.every((tool) => tool.type === 'function' && tool.function.parameters.type === 'object'),
    ).toBe(true);
    expect(body.max_tokens).toBe(report.outputReserve);
  });

  it('prints the whole Anthropic body, with --model naming the model', async () => {
    const run = capture();
    expect(
      await main(
        ['compile', 'raft-consensus', '--format', 'anthropic', '--model', 'claude-sonnet-4-5'],
        run.io,
      ),
    ).toBe(0);
    const body = JSON.parse(run.out()) as {
      model: string;
      max_tokens: number;
      system: unknown[];
      tools: { name: string; input_schema: { type: string } }[];
    };
    expect(body.model).toBe('claude-sonnet-4-5');
    expect(body.max_tokens).toBeGreaterThan(0);
    expect(body.system.length).toBeGreaterThan(0);
    expect(body.tools.map((tool) => tool.name)).toContain('write_file');
    expect(body.tools[0]?.input_schema.type).toBe('object');
  });
});

describe('the README commands and --json', () => {
  it('runs `calls <dir> --show -1` as written, and --json for the list, one call and a diff', async () => {
    for (const text of ['What is a term?', 'And an election?']) {
      const turn = capture();
      expect(await main(['chat', 'raft-consensus', text, '--json'], turn.io)).toBe(0);
      const result = JSON.parse(turn.out()) as { answer: string; calls: { id: string; step: number }[] };
      expect(result.answer).toContain('offline model');
      expect(result.calls).toHaveLength(1);
    }
    const show = capture();
    expect(await main(['calls', 'raft-consensus', '--show', '-1'], show.io)).toBe(0);
    expect(show.out()).toContain('history');
    const one = capture();
    expect(await main(['calls', 'raft-consensus', '--show', '-1', '--json'], one.io)).toBe(0);
    expect(JSON.parse(one.out())).toMatchObject({ step: 0, report: { fits: true } });
    const diff = capture();
    expect(await main(['calls', 'raft-consensus', '--diff', '-1', '--json'], diff.io)).toBe(0);
    expect(JSON.parse(diff.out())).toMatchObject({ totals: { previousTokens: expect.any(Number) } });
    const list = capture();
    expect(await main(['calls', 'raft-consensus', '--json'], list.io)).toBe(0);
    expect(JSON.parse(list.out())).toHaveLength(2);
  });

  it('answers `demo --help` with its help and `demo --json` with JSON of the bundled example', async () => {
    const help = capture();
    expect(await main(['demo', '--help'], help.io)).toBe(0);
    expect(help.out()).toContain('Usage: ctxloom demo');
    const json = capture();
    expect(await main(['demo', '--json'], json.io)).toBe(0);
    const value = JSON.parse(json.out()) as { messages: unknown[]; report: { fits: boolean } };
    expect(value.messages.length).toBeGreaterThan(1);
    expect(value.report.fits).toBe(true);
    expect(await main(['demo', 'a', 'b'], capture().io)).toBe(2);
  });

  it('prints the preview report as JSON with --json', async () => {
    const run = capture();
    expect(await main(['preview', 'raft-consensus', '--json'], run.io)).toBe(0);
    const value = JSON.parse(run.out()) as { report: { totalTokens: number }; warnings: string[] };
    expect(value.report.totalTokens).toBeGreaterThan(0);
    expect(Array.isArray(value.warnings)).toBe(true);
  });
});
