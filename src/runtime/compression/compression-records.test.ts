import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyRequirementDelta,
  createCompressionState,
  formatThreadId,
  registerArtifact,
  registerToolEvidence,
} from '../../compression/index.ts';
import {
  type CompressionRecords,
  joinArtifacts,
  joinRequirements,
  splitArtifacts,
  splitRequirements,
  upsertRecords,
} from './compression-records.ts';

const threadId = formatThreadId({ app: 'etl', userId: 'u', sessionId: 's' });

describe('compression records', () => {
  it('rebuilds requirements and artifacts exactly from skeletons and records', () => {
    const state = createCompressionState({ threadId });
    const message = { id: 'm0', turnIndex: 0, text: '输出表必须是 dw.orders_daily；金额用 paid_amount' };
    const global = applyRequirementDelta({
      snapshot: state.requirements.global,
      delta: {
        id: 'm0@global',
        threadId,
        agentId: null,
        baseRevision: 0,
        ops: [
          {
            op: 'add',
            id: 'G1',
            type: 'output',
            priority: 'must',
            text: 'dw.orders_daily',
            evidence: { turnIndex: 0, messageId: 'm0', quote: '输出表必须是 dw.orders_daily' },
          },
          {
            op: 'add',
            id: 'G2',
            type: 'rule',
            priority: 'must',
            text: 'paid_amount',
            evidence: { turnIndex: 0, messageId: 'm0', quote: '金额用 paid_amount' },
          },
        ],
      },
      messages: [message],
    }).snapshot;
    const requirements = { ...state.requirements, global, scoped: { tester: global } };
    let artifacts = registerArtifact(state.artifacts, {
      kind: 'sql_job',
      name: 'orders_daily',
      agentId: 'sql_developer',
      content: 'INSERT INTO dw.orders_daily SELECT 1',
      turnIndex: 1,
    }).state;
    artifacts = registerArtifact(artifacts, {
      kind: 'sql_job',
      name: 'orders_daily',
      agentId: 'sql_developer',
      content: 'INSERT INTO dw.orders_daily SELECT 2',
      turnIndex: 2,
    }).state;
    artifacts = registerToolEvidence(artifacts, {
      toolName: 'sql_static_check',
      agentId: 'sql_developer',
      input: 'x',
      output: { ok: true },
      turnIndex: 2,
    }).state;
    const records: CompressionRecords = {};
    const requirementsSkeleton = splitRequirements(requirements, records);
    const artifactsSkeleton = splitArtifacts(artifacts, records);
    expect(JSON.stringify(artifactsSkeleton)).not.toContain('INSERT');
    expect(joinRequirements(requirementsSkeleton, records)).toEqual(requirements);
    expect(joinArtifacts(artifactsSkeleton, records)).toEqual(artifacts);
  });

  it('upserts the same result however the writes are batched (as delta-channel replay requires)', () => {
    const write = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), fc.integer());
    fc.assert(
      fc.property(fc.array(write, { maxLength: 8 }), fc.integer({ min: 0, max: 8 }), (writes, cut) => {
        const once = upsertRecords({}, writes);
        const twice = upsertRecords(upsertRecords({}, writes.slice(0, cut)), writes.slice(cut));
        expect(twice).toEqual(once);
        expect(JSON.stringify(Object.keys(twice))).toBe(JSON.stringify(Object.keys(once)));
      }),
    );
  });
});
