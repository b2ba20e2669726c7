import { describe, expect, it } from 'vitest';
import {
  applyRequirementDelta,
  createCompressionState,
  formatThreadId,
  registerArtifact,
} from '../../compression/index.ts';
import { CtxloomError } from '../../core/errors.ts';
import { StateBuilder } from '../../state/index.ts';
import { COMPRESSION_KEYS, createCompressionBlackboard } from './compression-blackboard.ts';
import { CompressionStateModule } from './compression-state-module.ts';

const blackboard = createCompressionBlackboard();
const threadId = formatThreadId({ app: 'etl', userId: 'alice', sessionId: 's1' });
const builder = (state: Record<string, unknown> = {}) => new StateBuilder(state, { blackboard });

describe('CompressionStateModule', () => {
  it('writes compression state only into the node patch, one channel per part', () => {
    const sb = builder();
    const module = new CompressionStateModule(sb);
    expect(module.snapshot()).toBeUndefined();
    const saved = module.commit(createCompressionState({ threadId }), { expectedRevision: null });
    expect(saved.revision).toBe(0);
    const patch = sb.patch();
    expect(Object.keys(patch).sort()).toEqual(
      [COMPRESSION_KEYS.artifacts, COMPRESSION_KEYS.requirements, COMPRESSION_KEYS.session].sort(),
    );
    expect(patch[COMPRESSION_KEYS.session]).toMatchObject({ threadId, revision: 0 });
  });

  it('rewrites only the channels that changed', () => {
    const first = builder();
    new CompressionStateModule(first).commit(createCompressionState({ threadId }), {
      expectedRevision: null,
    });
    const sb = builder(first.patch() as Record<string, unknown>);
    const module = new CompressionStateModule(sb);
    module.update(threadId, (state) => ({
      ...state,
      artifacts: registerArtifact(state.artifacts, {
        kind: 'plan',
        name: 'orders_daily',
        agentId: 'planner',
        content: { jobs: ['orders_daily'] },
        turnIndex: 0,
      }).state,
    }));
    const patch = sb.patch();
    expect(Object.keys(patch).sort()).toEqual(
      [COMPRESSION_KEYS.artifacts, COMPRESSION_KEYS.records, COMPRESSION_KEYS.session].sort(),
    );
    // The skeleton holds ids only; the records channel holds the new entry and its content.
    expect(patch[COMPRESSION_KEYS.artifacts]).toMatchObject({ artifactIds: ['plan:orders_daily@v1'] });
    expect(JSON.stringify(patch[COMPRESSION_KEYS.artifacts])).not.toContain('orders_weekly');
    expect(Object.keys(patch[COMPRESSION_KEYS.records] as object)).toEqual([
      'a:plan:orders_daily@v1',
      'c:plan:orders_daily@v1',
    ]);
    expect(module.snapshot()?.revision).toBe(1);
    expect(module.snapshot()?.artifacts.contents['plan:orders_daily@v1']).toContain('orders_daily');
    // Next node: the stored contents stay, a new version adds only its own content.
    const next = builder({
      ...(first.patch() as Record<string, unknown>),
      ...(patch as Record<string, unknown>),
    });
    const nextModule = new CompressionStateModule(next);
    nextModule.update(threadId, (state) => ({
      ...state,
      artifacts: registerArtifact(state.artifacts, {
        kind: 'plan',
        name: 'orders_daily',
        agentId: 'planner',
        content: { jobs: ['orders_daily', 'orders_weekly'] },
        turnIndex: 1,
      }).state,
    }));
    // v1 is superseded (its entry record changes), v2 is new; v1's content is not rewritten.
    expect(Object.keys(next.patch()[COMPRESSION_KEYS.records] as object).sort()).toEqual([
      'a:plan:orders_daily@v1',
      'a:plan:orders_daily@v2',
      'c:plan:orders_daily@v2',
    ]);
    expect(Object.keys(nextModule.snapshot()?.artifacts.contents ?? {})).toEqual([
      'plan:orders_daily@v1',
      'plan:orders_daily@v2',
    ]);
  });

  it('keeps one session per Blackboard: another thread reads nothing and cannot write', async () => {
    const sb = builder();
    const module = new CompressionStateModule(sb);
    module.commit(createCompressionState({ threadId }), { expectedRevision: null });
    const bob = formatThreadId({ app: 'etl', userId: 'bob', sessionId: 's1' });
    expect(await module.load(bob)).toBeUndefined();
    expect(() => module.ensure(bob)).toThrow(CtxloomError);
    await expect(
      module.save(createCompressionState({ threadId: bob }), { expectedRevision: 0 }),
    ).rejects.toSatisfy((error) => CtxloomError.is(error, 'invalid-argument'));
  });

  it('refuses a save based on a stale revision', () => {
    const module = new CompressionStateModule(builder());
    const first = module.commit(createCompressionState({ threadId }), { expectedRevision: null });
    module.commit(first, { expectedRevision: 0 });
    expect(() => module.commit(first, { expectedRevision: 0 })).toThrow(/revision 1/);
  });

  it('keeps requirement deltas with their evidence, and coordination requests, in the state', () => {
    const sb = builder();
    const module = new CompressionStateModule(sb);
    const state = module.ensure(threadId);
    const message = { id: 'human:s1:i0', turnIndex: 0, text: '输出表必须是 dw.orders_daily' };
    const applied = applyRequirementDelta({
      snapshot: state.requirements.global,
      delta: {
        id: `${message.id}@global`,
        threadId,
        agentId: null,
        baseRevision: 0,
        ops: [
          {
            op: 'add',
            id: 'G1',
            type: 'output',
            priority: 'must',
            text: 'Output dw.orders_daily',
            evidence: { turnIndex: 0, messageId: message.id, quote: '输出表必须是 dw.orders_daily' },
          },
        ],
      },
      messages: [message],
    });
    expect(applied.status).toBe('applied');
    module.update(threadId, (current) => ({
      ...current,
      requirements: { ...current.requirements, global: applied.snapshot },
    }));
    module.openRequest({
      id: 'r1',
      kind: 'human',
      status: 'pending',
      createdBy: 'planner',
      question: '回刷多少天？',
    });
    module.openRequest({ id: 'r1', kind: 'human', status: 'pending', createdBy: 'planner', question: 'dup' });
    expect(module.nextTurn()).toBe(0);
    module.resolveRequests(['r1'], '90 天');
    const next = new CompressionStateModule(builder(sb.patch() as Record<string, unknown>));
    expect(next.snapshot()?.requirements.global.items[0]?.evidence[0]?.quote).toBe(
      '输出表必须是 dw.orders_daily',
    );
    expect(next.snapshot()?.requirements.global.evidenceHistory).toHaveLength(1);
    expect(next.coordination()).toEqual({
      pendingRequests: [expect.objectContaining({ id: 'r1', status: 'answered', question: '回刷多少天？' })],
      requestResults: [{ requestId: 'r1', summary: '90 天' }],
      userTurns: 1,
      lastTurn: { commander: null, compaction: null },
    });
  });
});
