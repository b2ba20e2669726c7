import {
  createHeuristicRequirementProposer,
  createRequirementTodoSnapshot,
  scopedSnapshotOf,
  type ThreadId,
} from '../compression/index.ts';
import type { SemanticRouter } from './semantic-router.ts';
import { tokenizeTerms } from './tokenize-terms.ts';

const GLOBAL_TYPES = new Set(['input', 'output', 'rule', 'acceptance']);
const STOP = new Set([
  'the',
  'and',
  'for',
  'to',
  'of',
  'in',
  'is',
  'it',
  'on',
  'this',
  'that',
  'with',
  'be',
  'we',
  'you',
  'please',
  '请',
  '的',
  '了',
  '是',
  '我',
  '你',
  '一下',
  '这个',
]);

/**
 * The offline router — a documented lexical heuristic, not a model. Each agent is scored by
 * the terms of its `scope` and `keywords` found in the user message, each term weighted by
 * `log(1 + agents / agentsHavingTerm)` so terms unique to one agent count most. The target
 * is the best-scoring agent; `confidence = share × min(1, top / 2)`, where `share` is its
 * part of all scores, so a single weak match stays below the default 0.7 threshold.
 * Actions come from the offline requirement heuristic: ops adding inputs, outputs, rules and
 * acceptance criteria go to `propose_global_delta` (with the routing confidence) when the
 * agent allows it, everything else to `update_scoped_todo`.
 */
export function createLexicalRouter(): SemanticRouter {
  const proposer = createHeuristicRequirementProposer();
  return {
    name: 'offline-lexical',
    async route(input) {
      const vocabularies = input.agents.map(
        (agent) => new Set(tokenizeTerms(`${agent.id} ${agent.scope} ${(agent.keywords ?? []).join(' ')}`)),
      );
      const documentFrequency = new Map<string, number>();
      for (const vocabulary of vocabularies) {
        for (const term of vocabulary) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
      }
      const terms = new Set(tokenizeTerms(input.userMessage.text).filter((term) => !STOP.has(term)));
      const scores = vocabularies.map((vocabulary) => {
        let score = 0;
        for (const term of terms) {
          if (vocabulary.has(term))
            score += Math.log(1 + input.agents.length / (documentFrequency.get(term) ?? 1));
        }
        return score;
      });
      const total = scores.reduce((sum, score) => sum + score, 0);
      let best = 0;
      scores.forEach((score, index) => {
        if (score > (scores[best] ?? 0)) best = index;
      });
      const agent = input.agents[best];
      if (agent === undefined)
        return {
          ok: false,
          reason: 'malformed-output',
          message: 'no agents to route to',
          source: 'offline-lexical',
        };
      const top = scores[best] ?? 0;
      const confidence = total === 0 ? 0 : Number(((top / total) * Math.min(1, top / 2)).toFixed(3));
      const actions: Record<string, unknown>[] = [];
      if (agent.allowedActions.includes('update_scoped_todo')) {
        const snapshot =
          input.todos === undefined
            ? createRequirementTodoSnapshot({
                threadId: 'offline:user:-:session:-' as ThreadId,
                agentId: agent.id,
              })
            : scopedSnapshotOf(input.todos, agent.id);
        const proposed = await proposer({ view: '', snapshot, message: input.userMessage });
        const ops = proposed.ok ? proposed.proposal.ops : [];
        // Global facts (seed 004 §3: inputs, outputs, metric rules, acceptance) are proposed
        // for the global TODO when the agent may do so; the rest stays scoped.
        const canPropose = agent.allowedActions.includes('propose_global_delta');
        const known = new Set(
          (input.todos?.global.items ?? [])
            .filter((item) => item.status !== 'cancelled')
            .map((item) => item.text),
        );
        const isGlobal = (op: (typeof ops)[number]) =>
          canPropose && op.op === 'add' && GLOBAL_TYPES.has(op.type);
        const global = ops.filter((op) => isGlobal(op) && op.op === 'add' && !known.has(op.text));
        const scoped = ops.filter((op) => !isGlobal(op));
        if (scoped.length > 0) actions.push({ type: 'update_scoped_todo', ops: scoped });
        if (global.length > 0) actions.push({ type: 'propose_global_delta', ops: global, confidence });
      }
      return { ok: true, raw: { targetAgent: agent.id, confidence, actions }, source: 'offline-lexical' };
    },
  };
}
