import { describe, expect, it } from 'vitest';
import {
  type CompressionStore,
  createCompressionState,
  createInMemoryCompressionStore,
  formatThreadId,
  registerArtifact,
  type ThreadId,
} from '../compression/index.ts';
import { createCharCounter } from '../testing/index.ts';
import { applyCommanderPatch } from './commander-patch.ts';
import { ETL_AGENTS } from './fixtures.test-support.ts';
import { createLexicalRouter } from './lexical-router.ts';
import { processUserMessage } from './process-user-message.ts';
import { DEFAULT_ROUTER_CONFIG } from './router-config.ts';

const counter = createCharCounter();

async function say(store: CompressionStore, threadId: ThreadId, id: string, text: string) {
  const loaded = await store.load(threadId);
  const state = loaded ?? createCompressionState({ threadId });
  const { patch } = await processUserMessage({
    state,
    agents: ETL_AGENTS,
    userMessage: { id, role: 'user', content: text },
    turn: 0,
    router: createLexicalRouter(),
    config: DEFAULT_ROUTER_CONFIG,
    counter,
  });
  return store.save(applyCommanderPatch(state, patch), {
    expectedRevision: loaded === undefined ? null : loaded.revision,
  });
}

describe('session isolation', () => {
  it('keeps TODOs and artifacts of two sessions and of two users with the same session id apart', async () => {
    const store = createInMemoryCompressionStore();
    const aliceS1 = formatThreadId({ app: 'etl', userId: 'alice', sessionId: 's1' });
    const aliceS2 = formatThreadId({ app: 'etl', userId: 'alice', sessionId: 's2' });
    const bobS1 = formatThreadId({ app: 'etl', userId: 'bob', sessionId: 's1' });
    await say(store, aliceS1, 'a1', '必须增加空值校验测试');
    await say(store, bobS1, 'b1', '测试需要校验行数');
    const aliceState = await store.load(aliceS1);
    const bobState = await store.load(bobS1);
    expect(aliceState?.requirements.scoped.tester?.items.map((item) => item.text)).toEqual([
      '必须增加空值校验测试',
    ]);
    expect(bobState?.requirements.scoped.tester?.items.map((item) => item.text)).toEqual([
      '测试需要校验行数',
    ]);
    expect(await store.load(aliceS2)).toBeUndefined();
    expect(JSON.stringify(bobState)).not.toContain('空值');

    const withArtifact = {
      ...aliceState!,
      artifacts: registerArtifact(aliceState!.artifacts, {
        kind: 'test',
        name: 'nulls',
        agentId: 'tester',
        content: 'SELECT count(*) FROM dw.x WHERE id IS NULL',
        turnIndex: 1,
      }).state,
    };
    await store.save(withArtifact, { expectedRevision: aliceState!.revision });
    expect((await store.load(bobS1))?.artifacts.index.artifacts).toEqual([]);
    expect((await store.load(aliceS1))?.artifacts.index.artifacts).toHaveLength(1);
  });

  it('never applies one session’s patch or delta to another', async () => {
    const alice = createCompressionState({
      threadId: formatThreadId({ app: 'etl', userId: 'alice', sessionId: 's1' }),
    });
    const bob = createCompressionState({
      threadId: formatThreadId({ app: 'etl', userId: 'bob', sessionId: 's1' }),
    });
    const { patch } = await processUserMessage({
      state: alice,
      agents: ETL_AGENTS,
      userMessage: { id: 'm1', role: 'user', content: '必须增加空值校验测试' },
      turn: 0,
      router: createLexicalRouter(),
      config: DEFAULT_ROUTER_CONFIG,
      counter,
    });
    expect(() => applyCommanderPatch(bob, patch)).toThrow(/patch for etl:user:alice:session:s1/);
  });
});
