import {
  createHeuristicRequirementProposer,
  createRequirementTodoSnapshot,
  scopedSnapshotOf,
  type ThreadId,
} from '../compression/index.ts';
import type { SemanticRouter } from './semantic-router.ts';
import { tokenizeTerms } from './tokenize-terms.ts';

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
 * Actions: `update_scoped_todo` with the offline requirement heuristic's ops, when allowed.
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
      const actions = [];
      if (agent.allowedActions.includes('update_scoped_todo')) {
        const snapshot =
          input.todos === undefined
            ? createRequirementTodoSnapshot({
                threadId: 'offline:user:-:session:-' as ThreadId,
                agentId: agent.id,
              })
            : scopedSnapshotOf(input.todos, agent.id);
        const proposed = await proposer({ view: '', snapshot, message: input.userMessage });
        if (proposed.ok && proposed.proposal.ops.length > 0) {
          actions.push({ type: 'update_scoped_todo', ops: proposed.proposal.ops });
        }
      }
      return { ok: true, raw: { targetAgent: agent.id, confidence, actions }, source: 'offline-lexical' };
    },
  };
}
