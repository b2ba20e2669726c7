import { describe, expect, it } from 'vitest';
import { createCharCounter } from '../testing/index.ts';
import { createBlock } from './block.ts';
import { closestName } from './closest-name.ts';
import { compileContext } from './compile.ts';
import { CtxloomError } from './errors.ts';
import type { ContextSource } from './source.ts';

const counter = createCharCounter();

function sourceFilling(layer: string): ContextSource {
  return {
    name: 'notes',
    layer,
    priority: 0.5,
    collect: async (request) => [
      createBlock({ id: 'n1', layer, source: 'notes', content: 'The API uses JSON.' }, request.counter),
    ],
  };
}

async function compileWith(source: ContextSource, enableShareContext: boolean) {
  return compileContext(
    { query: 'format?' },
    { counter, window: 2000, sources: [source], enableShareContext },
  );
}

describe('gatherBlocks', () => {
  it.each([true, false])(
    'refuses a source of a misspelt layer, naming both and the closest layer (sharing %s)',
    async (share) => {
      const failure = await compileWith(sourceFilling('knowlege__context'), share).catch(
        (error: unknown) => error,
      );
      expect(CtxloomError.is(failure, 'unknown-layer')).toBe(true);
      const error = failure as CtxloomError;
      expect(error.message).toContain('source "notes" fills the unknown layer "knowlege__context"');
      expect(error.message).toContain('did you mean "knowledge__context"?');
      expect(error.path).toBe('sources.notes.layer');
    },
  );

  it('refuses an unknown layer with no close name without a guess', async () => {
    const failure = await compileWith(sourceFilling('weather__context'), true).catch(
      (error: unknown) => error,
    );
    expect(CtxloomError.is(failure, 'unknown-layer')).toBe(true);
    expect((failure as Error).message).not.toContain('did you mean');
  });

  it('still reports a known shared layer as share-disabled when sharing is off', async () => {
    const compiled = await compileWith(sourceFilling('knowledge__context'), false);
    expect(compiled.report.sources.find((source) => source.name === 'notes')?.skipped).toBe('share-disabled');
    const sent = await compileWith(sourceFilling('knowledge__context'), true);
    expect(sent.contexts.knowledge__context).toBe('The API uses JSON.');
  });
});

describe('closestName', () => {
  it('finds a misspelling within two edits or a quarter of the name, else nothing', () => {
    const names = ['system', 'knowledge__context', 'todo__context'];
    expect(closestName('knowlege__context', names)).toBe('knowledge__context');
    expect(closestName('tood__context', names)).toBe('todo__context');
    expect(closestName('weather__context', names)).toBeUndefined();
  });
});
