import { describe, expect, it } from 'vitest';
import { createCharCounter } from '../testing/char-counter.ts';
import { createBlock } from './block.ts';
import { collectContexts } from './collector.ts';
import { CtxloomError } from './errors.ts';
import { createLayerRegistry, registerLayer } from './layers.ts';
import type { ContextSource } from './source.ts';

const counter = createCharCounter();
const request = { query: 'q', history: [], counter };

function source(name: string, layer: string, blockLayer = layer): ContextSource {
  return {
    name,
    layer,
    priority: 0.5,
    collect: async () => [
      createBlock({ id: `${name}-1`, layer: blockLayer, source: name, content: `from ${name}` }, counter),
    ],
  };
}

describe('collectContexts', () => {
  it('returns contexts keyed by __context layers, with the blocks behind them', async () => {
    const layers = createLayerRegistry();
    registerLayer(layers, { name: 'glossary__context' });
    const collected = await collectContexts({
      sources: [
        source('kb', 'knowledge__context'),
        source('todo', 'todo__context'),
        source('glossary', 'glossary__context'),
      ],
      request,
      allocations: {},
      layers,
    });
    expect(collected.contexts).toEqual({
      knowledge__context: 'from kb',
      todo__context: 'from todo',
      glossary__context: 'from glossary',
    });
    for (const key of Object.keys(collected.contexts)) expect(key.endsWith('__context')).toBe(true);
    expect(collected.blocks).toHaveLength(3);
  });

  it('refuses a source whose layer key does not end in __context', async () => {
    const call = collectContexts({
      sources: [source('bad', 'knowledge')],
      request,
      allocations: {},
      layers: createLayerRegistry(),
    });
    await expect(call).rejects.toBeInstanceOf(CtxloomError);
    await expect(call).rejects.toThrow(/must end in "__context"/);
  });

  it('refuses a block filed under another layer than its source', async () => {
    const call = collectContexts({
      sources: [source('kb', 'knowledge__context', 'todo__context')],
      request,
      allocations: {},
      layers: createLayerRegistry(),
    });
    await expect(call).rejects.toThrow(
      /fills "knowledge__context" but returned block "kb-1" for "todo__context"/,
    );
  });

  it('refuses two sources with one name', async () => {
    const call = collectContexts({
      sources: [source('kb', 'knowledge__context'), source('kb', 'todo__context')],
      request,
      allocations: {},
      layers: createLayerRegistry(),
    });
    await expect(call).rejects.toThrow(/two sources are named "kb"/);
  });
});
