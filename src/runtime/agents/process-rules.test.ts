import { describe, expect, it } from 'vitest';
import { layerFilter } from '../../core/compose.ts';
import { createLayerRegistry } from '../../core/index.ts';
import { processRule } from './process-rules.ts';

describe('processRule', () => {
  const layers = createLayerRegistry();
  const injected = (rule: ReturnType<typeof processRule>) => {
    const filter = layerFilter(
      { enableShareContext: rule.enableShareContext, alwaysInclude: rule.alwaysInclude },
      layers,
    );
    return ['framework__context', 'profile__context', 'knowledge__context', 'todo__context'].filter(filter);
  };

  it('gives a map-reduce worker only the framework, and with workerKnowledge the profile and knowledge too', () => {
    expect(injected(processRule('mapreduce-worker'))).toEqual(['framework__context']);
    // The profile blocks were in the knowledge layer before decision 071: a worker that saw one sees both.
    expect(injected(processRule('mapreduce-worker', { workerKnowledge: true }))).toEqual([
      'framework__context',
      'profile__context',
      'knowledge__context',
    ]);
  });

  it('shares every shared layer with an agent unless the team switch is off', () => {
    expect(injected(processRule('agent'))).toEqual([
      'framework__context',
      'profile__context',
      'knowledge__context',
      'todo__context',
    ]);
    expect(injected(processRule('agent', { enableShareContext: false }))).toEqual(['framework__context']);
  });
});
