import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SqliteSaver } from './sqlite-saver.ts';

// The official conformance suite is written against Vitest globals; install them before loading it.
Object.assign(globalThis, { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it });
const { validate, deltaChannelHistoryTests } = await import('@langchain/langgraph-checkpoint-validation');

const initializer = {
  checkpointerName: 'ctxloom SqliteSaver',
  createCheckpointer: () => new SqliteSaver({ path: ':memory:' }),
  destroyCheckpointer: (saver: SqliteSaver) => saver.close(),
};

validate(initializer);
deltaChannelHistoryTests(initializer);
