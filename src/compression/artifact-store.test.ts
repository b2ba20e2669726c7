import { describe, expect, it } from 'vitest';
import { createCharCounter } from '../testing/index.ts';
import { sha256Hex } from './artifact-content.ts';
import { ArtifactIndexSchema } from './artifact-schema.ts';
import { createArtifactStore } from './create-artifact-store.ts';
import { formatThreadId } from './thread-id.ts';

const threadId = formatThreadId({ app: 'etl', userId: 'u1', sessionId: 's1' });
const counter = createCharCounter();
const SQL = `INSERT INTO dw.orders_daily SELECT dt, sum(paid_amount) FROM ods.orders WHERE refund_flag = 0 AND channel <> 'test-only-channel' GROUP BY dt;`;

function store() {
  let now = 1_000;
  return createArtifactStore({ threadId, clock: () => now++ });
}

describe('ArtifactStore', () => {
  it('indexes SQL by hash, length and tables without keeping the SQL text in the index', () => {
    const artifacts = store();
    const { entry } = artifacts.registerArtifact({
      kind: 'sql_job',
      name: 'orders_daily',
      agentId: 'sql_dev',
      content: SQL,
      turnIndex: 3,
    });
    expect(entry).toMatchObject({
      id: 'sql_job:orders_daily@v1',
      version: 1,
      status: 'active',
      sha256: sha256Hex(SQL),
      length: SQL.length,
      keyFields: { statements: 1, writes: 'dw.orders_daily', reads: 'ods.orders' },
    });
    const index = JSON.stringify(artifacts.state().index);
    expect(index).not.toContain('refund_flag');
    expect(index).not.toContain('test-only-channel');
    expect(artifacts.content(entry.id)).toBe(SQL);
    expect(ArtifactIndexSchema.parse(artifacts.state().index)).toEqual(artifacts.state().index);
  });

  it('keeps only the keys of JSON outputs and a bounded preview of text', () => {
    const artifacts = store();
    const plan = artifacts.registerArtifact({
      kind: 'plan',
      name: 'etl',
      agentId: 'planner',
      content: { steps: ['extract', 'load'], owner: 'team-a', secretDetail: 'full-json-value' },
      turnIndex: 1,
    });
    expect(plan.entry.preview).toBe('{ owner, secretDetail, steps }');
    expect(JSON.stringify(artifacts.state().index)).not.toContain('full-json-value');
    const analysis = artifacts.registerArtifact({
      kind: 'analysis',
      name: 'a',
      agentId: 'analyst',
      content: 'x'.repeat(5000),
      turnIndex: 1,
    });
    expect(analysis.entry.preview.length).toBeLessThanOrEqual(160);
  });

  it('supersedes the previous version and ignores identical re-registration', () => {
    const artifacts = store();
    artifacts.registerArtifact({
      kind: 'sql_job',
      name: 'j',
      agentId: 'sql_dev',
      content: SQL,
      turnIndex: 1,
    });
    expect(
      artifacts.registerArtifact({
        kind: 'sql_job',
        name: 'j',
        agentId: 'sql_dev',
        content: SQL,
        turnIndex: 2,
      }).status,
    ).toBe('unchanged');
    const second = artifacts.registerArtifact({
      kind: 'sql_job',
      name: 'j',
      agentId: 'sql_dev',
      content: `${SQL}\n`,
      turnIndex: 3,
    });
    expect(second.entry.version).toBe(2);
    expect(artifacts.state().index.artifacts.map((entry) => `${entry.id}:${entry.status}`)).toEqual([
      'sql_job:j@v1:superseded',
      'sql_job:j@v2:active',
    ]);
  });

  it('invalidates by id or key and reports unknown ids as data', () => {
    const artifacts = store();
    artifacts.registerArtifact({
      kind: 'test',
      name: 't',
      agentId: 'tester',
      content: 'assert rows > 0',
      turnIndex: 1,
    });
    expect(
      artifacts.invalidateArtifact({ artifactId: 'test:t', reason: 'requirement G2 changed', turnIndex: 2 }),
    ).toBe('invalidated');
    expect(artifacts.invalidateArtifact({ artifactId: 'test:t@v1', reason: 'again', turnIndex: 2 })).toBe(
      'already-invalidated',
    );
    expect(artifacts.invalidateArtifact({ artifactId: 'nope', reason: 'x', turnIndex: 2 })).toBe('not-found');
    expect(artifacts.state().index.artifacts[0]?.invalidation).toEqual({
      reason: 'requirement G2 changed',
      turnIndex: 2,
    });
  });

  it('records tool evidence as fingerprints plus a short preview', () => {
    const artifacts = store();
    const output = { rows: 1234, sample: 'y'.repeat(1000) };
    const evidence = artifacts.registerToolEvidence({
      toolName: 'dry_run',
      agentId: 'tester',
      input: SQL,
      output,
      artifactId: 'sql_job:j@v1',
      turnIndex: 4,
    });
    expect(evidence).toMatchObject({
      inputSha256: sha256Hex(SQL),
      inputLength: SQL.length,
      ok: true,
      artifactId: 'sql_job:j@v1',
    });
    expect(evidence.preview.length).toBeLessThanOrEqual(160);
    expect(evidence.preview.startsWith('{"rows":1234')).toBe(true);
  });

  it('builds the three-section view with focus jobs first and stays under budget', () => {
    const artifacts = store();
    artifacts.registerArtifact({
      kind: 'analysis',
      name: 'req',
      agentId: 'analyst',
      content: 'Orders per day.',
      turnIndex: 1,
    });
    artifacts.registerArtifact({
      kind: 'plan',
      name: 'etl',
      agentId: 'planner',
      content: { steps: [] },
      turnIndex: 2,
    });
    artifacts.registerArtifact({
      kind: 'sql_job',
      name: 'a',
      agentId: 'sql_dev',
      content: SQL,
      turnIndex: 3,
    });
    artifacts.registerArtifact({
      kind: 'sql_job',
      name: 'b',
      agentId: 'sql_dev',
      content: SQL.replace('dw.', 'dm.'),
      turnIndex: 4,
    });
    artifacts.registerArtifact({
      kind: 'sql_job',
      name: 'a',
      agentId: 'sql_dev',
      content: `${SQL} `,
      turnIndex: 5,
      focus: true,
    });
    artifacts.registerToolEvidence({
      toolName: 'dry_run',
      agentId: 'tester',
      input: 'x',
      output: 'ok 10 rows',
      artifactId: 'sql_job:a@v2',
      turnIndex: 6,
    });
    const view = artifacts.buildArtifactContextView({ counter, maxTokens: 5000 });
    const sections = ['### Global anchors', '### Focus jobs', '### Recent by agent'].map((heading) =>
      view.text.indexOf(heading),
    );
    expect(sections.every((position, index) => position > (sections[index - 1] ?? -1))).toBe(true);
    expect(view.text.indexOf('sql_job:a@v2')).toBeLessThan(view.text.indexOf('sql_job:b@v1'));
    expect(view.text).toContain('evidence ev1 dry_run ok: ok 10 rows');
    expect(view.text).toContain('sql_job:a@v1 [superseded]');
    expect(view.text).not.toContain('refund_flag');
    for (const maxTokens of [0, 50, 120, 300, 600]) {
      const bounded = artifacts.buildArtifactContextView({ counter, maxTokens });
      expect(bounded.tokens).toBeLessThanOrEqual(maxTokens);
    }
  });
});
