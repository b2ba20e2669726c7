import { SpanKind } from '@opentelemetry/api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { expectQuotedWhole, readPage } from '../doc-examples.test-support.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

/** The attribute names of the page's first table ("Set when the call is sent"). */
async function sentAttributes(): Promise<string[]> {
  const page = await readPage('docs/telemetry.md');
  const table = page.slice(page.indexOf('## Attributes'), page.indexOf('Set when the call ends'));
  return [...table.matchAll(/^\| `([a-z_.<>]+)` \|/gmu)].map((match) => match[1] as string);
}

describe('docs/telemetry.md', () => {
  it('quotes trace-calls.ts whole', async () => {
    await expectQuotedWhole('docs/telemetry.md', ['examples/telemetry/trace-calls.ts']);
  });

  it('traces every logged call of the turn as a CLIENT span named chat {model}, with the attributes the page lists', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const { exporter, calls } = await import('./trace-calls.ts');
    const spans = exporter.getFinishedSpans();
    expect(calls.length).toBeGreaterThan(0);
    expect(spans).toHaveLength(calls.length);
    const names = await sentAttributes();
    expect(names.length).toBeGreaterThan(20);
    for (const [index, call] of calls.entries()) {
      const span = spans[index];
      const attributes = span?.attributes ?? {};
      expect(span?.name).toBe(`chat ${attributes['gen_ai.request.model']}`);
      expect(span?.kind).toBe(SpanKind.CLIENT);
      expect(attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'ctxloom',
        'gen_ai.conversation.id': 'raft-consensus',
        'gen_ai.request.max_tokens': call.report.outputReserve,
        'ctxloom.call.id': call.id,
        'ctxloom.call.step': call.step,
        'ctxloom.model': 'offline',
        'ctxloom.tokens.total': call.report.totalTokens,
        'ctxloom.tokens.budget': call.report.inputBudget,
        'ctxloom.tokens.window': call.report.window,
        'ctxloom.tokens.overhead': call.report.overheadTokens,
        'ctxloom.tools.names': call.report.tools?.names,
        'ctxloom.layers': call.report.layers.map((layer) => layer.layer),
        'ctxloom.fits': call.report.fits,
        'ctxloom.counter': call.report.counter,
      });
      for (const layer of call.report.layers) {
        expect(attributes[`ctxloom.layer.${layer.layer}.tokens`]).toBe(layer.tokens);
      }
      // Every attribute of the table; the cache prefix needs a previous call, which a copied
      // example session does not have.
      const present = names.filter((name) => !name.includes('<') && !name.startsWith('ctxloom.cache.'));
      for (const name of present) expect(Object.keys(attributes), name).toContain(name);
      expect(log).toHaveBeenCalledWith(span?.name, call.step, call.report.totalTokens);
    }
  });
});
