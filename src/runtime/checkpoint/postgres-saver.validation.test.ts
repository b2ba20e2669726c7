import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { PostgresSaver } from './postgres-saver.ts';

// The official conformance suite is written against Vitest globals; install them before loading it.
Object.assign(globalThis, { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it });
const { validate, deltaChannelHistoryTests } = await import('@langchain/langgraph-checkpoint-validation');

const url = inject('pgUrl');
const schema = `ctxloom_validation_${process.pid}_${Date.now().toString(36)}`;
const pool = new pg.Pool({ connectionString: url, max: 4 });

const initializer = {
  checkpointerName: 'ctxloom PostgresSaver',
  beforeAllTimeout: 30_000,
  async beforeAll() {
    await pool.query(`CREATE SCHEMA "${schema}"`);
  },
  async afterAll() {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  },
  async createCheckpointer() {
    const saver = new PostgresSaver({ pool, schema });
    await saver.setup();
    // One table per run; every checkpointer starts from an empty one (all but the version row).
    await pool.query(`DELETE FROM "${schema}".ctxloom_cp_checkpoints WHERE thread >= 0`);
    return saver;
  },
};

validate(initializer);
deltaChannelHistoryTests(initializer);
