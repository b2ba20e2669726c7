import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeCompressionStoreConformance } from '../../compression/compression-store-conformance.ts';
import { createCompressionState, formatThreadId } from '../../compression/index.ts';
import { createCharCounter } from '../../testing/index.ts';
import { defineAgent } from '../agents/define-agent.ts';
import { SqliteSaver } from '../checkpoint/sqlite-saver.ts';
import { createDynamicProcess } from '../processes/dynamic.ts';
import { textModel } from '../processes/mock-model.test-support.ts';
import { submitInput } from '../session/submit-input.ts';
import { createCheckpointCompressionStore } from './checkpoint-compression-store.ts';
import { createCompressionBlackboard } from './compression-blackboard.ts';

const dir = mkdtempSync(join(tmpdir(), 'ctxloom-compression-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let file = 0;
describeCompressionStoreConformance('checkpoints (SqliteSaver)', () => {
  const blackboard = createCompressionBlackboard();
  const graph = createDynamicProcess({
    blackboard,
    counter: createCharCounter(),
    agents: [defineAgent({ id: 'echo', systemPrompt: 'echo', model: textModel(() => 'ok') })],
    router: () => undefined,
  }).compile({ checkpointer: new SqliteSaver({ path: join(dir, `store-${file++}.db`) }) });
  return createCheckpointCompressionStore({ graph, blackboard });
});

describe('createCheckpointCompressionStore', () => {
  it('writes through the checkpoint without leaving a run for the next input to finish', async () => {
    const blackboard = createCompressionBlackboard();
    const model = textModel(() => 'ok');
    const graph = createDynamicProcess({
      blackboard,
      counter: createCharCounter(),
      agents: [defineAgent({ id: 'echo', systemPrompt: 'echo', model })],
      router: ({ hops }) => (hops === 0 ? { agentId: 'echo' } : undefined),
    }).compile({ checkpointer: new SqliteSaver({ path: join(dir, 'idle.db') }) });
    const store = createCheckpointCompressionStore({ graph, blackboard });
    const threadId = formatThreadId({ app: 'etl', userId: 'u1', sessionId: 's1' });
    const config = { configurable: { thread_id: threadId } };
    await submitInput({
      graph,
      config,
      input: { inputId: 'i1', content: 'hello' },
      session: { namespace: 'etl', sessionId: 's1' },
    });
    const saved = await store.save(
      { ...createCompressionState({ threadId }), forceContextClipping: true, clippingScope: 'all' },
      { expectedRevision: null },
    );
    expect(saved.revision).toBe(0);
    const view = await graph.getState(config);
    expect(view.next).toEqual([]);
    expect((view.values as Record<string, unknown>).compression_session).toMatchObject({
      forceContextClipping: true,
    });
    const second = await submitInput({ graph, config, input: { inputId: 'i2', content: 'again' } });
    expect(second.accepted).toBe(true);
    expect(model.calls).toHaveLength(2);
    expect((await store.load(threadId))?.forceContextClipping).toBe(true);
  });
});
