import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type CompressionState,
  createCompressionState,
  formatThreadId,
  registerArtifact,
} from '../compression/index.ts';
import { mockJsonModel } from '../compression/mock-json-model.test-support.ts';
import { createCharCounter } from '../testing/index.ts';
import { applyCommanderPatch, patchChangesState } from './commander-patch.ts';
import { ETL_AGENTS } from './fixtures.test-support.ts';
import { processUserMessage } from './process-user-message.ts';
import { ROUTER_ACTION_TYPES, RouterDecisionSchema } from './router-schema.ts';
import { createModelRouter } from './semantic-router.ts';

const threadId = formatThreadId({ app: 'etl', userId: 'u1', sessionId: 's1' });
const config = { confidenceThreshold: 0.7, globalDeltaThreshold: 0.8 };
const counter = createCharCounter();
const TEXT = '输出表 dw.sales。Tests must check nulls. 调度每天两点。';

function baseState(): CompressionState {
  const state = createCompressionState({ threadId });
  const artifacts = registerArtifact(
    state.artifacts,
    {
      kind: 'sql_job',
      name: 'sales',
      agentId: 'sql_developer',
      content: 'INSERT INTO dw.sales SELECT 1',
      turnIndex: 0,
    },
    { clock: () => 0 },
  ).state;
  return { ...state, artifacts };
}

const quote = fc.oneof(
  fc.constantFrom('输出表 dw.sales', 'Tests must check nulls', '调度每天两点', TEXT),
  fc.string({ maxLength: 8 }),
);
const op = fc.oneof(
  fc.record({
    op: fc.constant('add'),
    type: fc.constantFrom('output', 'rule', 'bogus'),
    priority: fc.constantFrom('must', 'could'),
    text: fc.string({ maxLength: 10 }),
    quote,
  }),
  fc.record({
    op: fc.constant('update'),
    id: fc.constantFrom('G1', 'tester#1', 'X9'),
    text: fc.constant(null),
    type: fc.constant(null),
    priority: fc.constantFrom(null, 'must'),
    status: fc.constantFrom(null, 'done'),
    quote,
  }),
  fc.record({ op: fc.constantFrom('cancel', 'delete'), id: fc.constantFrom('G1', 'X9'), quote }),
  fc.record({ op: fc.constant('reset'), quote }),
);
const action = fc.oneof(
  fc.record({ type: fc.constant('update_scoped_todo'), ops: fc.array(op, { maxLength: 3 }) }),
  fc.record({
    type: fc.constant('propose_global_delta'),
    ops: fc.array(op, { maxLength: 3 }),
    confidence: fc.double({ min: -0.5, max: 1.5, noNaN: true }),
  }),
  fc.record({ type: fc.constant('request_clarification'), question: fc.string({ maxLength: 10 }) }),
  fc.record({
    type: fc.constant('invalidate_artifact'),
    artifactId: fc.constantFrom('sql_job:sales', 'sql_job:nope'),
    reason: fc.string({ minLength: 1, maxLength: 6 }),
  }),
  fc.record({ type: fc.constantFrom('drop_table', 'run_sql', 'route'), sql: fc.string({ maxLength: 10 }) }),
);
const decision = fc.record({
  targetAgent: fc.constantFrom(...ETL_AGENTS.map((agent) => agent.id), 'dba', ''),
  confidence: fc.oneof(fc.double({ min: -0.5, max: 1.5, noNaN: true }), fc.constantFrom(0.69999, 0.7, 1)),
  actions: fc.array(action, { maxLength: 4 }),
});
const goodQuote = fc.constantFrom('输出表 dw.sales', 'Tests must check nulls', '调度每天两点');
const goodOp = fc.record({
  op: fc.constant('add'),
  type: fc.constantFrom('output', 'acceptance'),
  priority: fc.constant('must'),
  text: fc.constantFrom('a', 'b'),
  quote: goodQuote,
});
const goodAction = fc.oneof(
  fc.record({
    type: fc.constant('update_scoped_todo'),
    ops: fc.array(goodOp, { minLength: 1, maxLength: 2 }),
  }),
  fc.record({
    type: fc.constant('propose_global_delta'),
    ops: fc.array(goodOp, { minLength: 1, maxLength: 2 }),
    confidence: fc.double({ min: 0, max: 1, noNaN: true }),
  }),
  fc.record({
    type: fc.constant('invalidate_artifact'),
    artifactId: fc.constant('sql_job:sales'),
    reason: fc.constant('changed'),
  }),
);
const plausible = fc.record({
  targetAgent: fc.constantFrom(...ETL_AGENTS.map((agent) => agent.id)),
  confidence: fc.double({ min: 0.5, max: 1, noNaN: true }),
  actions: fc.array(goodAction, { maxLength: 3 }),
});
const output = fc.oneof(
  { weight: 4, arbitrary: plausible },
  { weight: 6, arbitrary: decision },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 1, arbitrary: fc.record({ target: fc.string(), confidence: fc.string() }) },
);

/** The reference rule: a decision may change state only if it is whitelisted and confident. */
function isAcceptable(raw: unknown): boolean {
  const parsed = RouterDecisionSchema.safeParse(raw);
  if (!parsed.success) return false;
  const agent = ETL_AGENTS.find((candidate) => candidate.id === parsed.data.targetAgent);
  return (
    agent !== undefined &&
    parsed.data.confidence >= config.confidenceThreshold &&
    parsed.data.actions.every(
      (item) =>
        (ROUTER_ACTION_TYPES as readonly string[]).includes(item.type) &&
        agent.allowedActions.includes(item.type),
    )
  );
}

describe('router and commander properties', () => {
  it('random model outputs change state only through valid, whitelisted, confident decisions', async () => {
    let changed = 0;
    let rejected = 0;
    await fc.assert(
      fc.asyncProperty(output, async (raw) => {
        const state = baseState();
        const { outcome, patch } = await processUserMessage({
          state,
          agents: ETL_AGENTS,
          userMessage: { id: 'm1', role: 'user', content: TEXT },
          turn: 1,
          router: createModelRouter({ model: mockJsonModel(raw) }),
          config,
          counter,
        });
        const next = applyCommanderPatch(state, patch);
        if (patchChangesState(patch)) changed++;
        if (!isAcceptable(raw)) {
          rejected++;
          expect(outcome.type).toBe('clarification');
          expect(patchChangesState(patch)).toBe(false);
          expect(next).toEqual(state);
        }
        if (patchChangesState(patch)) {
          expect(outcome.type).toBe('routed');
          expect(isAcceptable(raw)).toBe(true);
        }
        const messages = new Map([['m1', { turnIndex: 1, text: TEXT }]]);
        const snapshots = [next.requirements.global, ...Object.values(next.requirements.scoped)];
        for (const item of snapshots.flatMap((snapshot) => snapshot.items)) {
          for (const anchor of item.evidence) {
            const cited = messages.get(anchor.messageId);
            expect(cited?.turnIndex).toBe(anchor.turnIndex);
            expect(cited?.text.includes(anchor.quote)).toBe(true);
          }
        }
      }),
      { numRuns: 250 },
    );
    // Both branches must actually be exercised for the property to mean anything.
    expect(changed).toBeGreaterThan(5);
    expect(rejected).toBeGreaterThan(50);
  });
});
