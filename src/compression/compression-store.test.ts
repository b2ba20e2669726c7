import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { describeContextSourceConformance } from '../testing/index.ts';
import { createCompressionState } from './compression-state.ts';
import { createInMemoryCompressionStore } from './compression-store.ts';
import { describeCompressionStoreConformance } from './compression-store-conformance.ts';
import { registerArtifact } from './register-artifact.ts';
import { createSqliteCompressionStore } from './sqlite-compression-store.ts';
import { formatThreadId } from './thread-id.ts';
import { createCompressionSource } from './todo-context-blocks.ts';

const database = new DatabaseSync(':memory:');
afterAll(() => database.close());

describeCompressionStoreConformance('in-memory', createInMemoryCompressionStore);
describeCompressionStoreConformance('sqlite', () =>
  createSqliteCompressionStore({ database, table: `compression_${Math.floor(Math.random() * 1e9)}` }),
);

describe('createSqliteCompressionStore', () => {
  it('refuses table names that are not plain identifiers', () => {
    expect(() => createSqliteCompressionStore({ database, table: 'x; DROP TABLE y' })).toThrow(/table name/);
  });
});

const threadId = formatThreadId({ app: 'etl', userId: 'u1', sessionId: 's1' });
const base = createCompressionState({ threadId });
const withArtifact = {
  ...base,
  artifacts: registerArtifact(
    base.artifacts,
    { kind: 'plan', name: 'etl', agentId: 'planner', content: 'Run daily at 02:00.', turnIndex: 0 },
    { clock: () => 0 },
  ).state,
};
describeContextSourceConformance(
  'createCompressionSource',
  () => createCompressionSource({ load: () => withArtifact }),
  {
    queries: ['plan', '调度'],
  },
);
