import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage } from '@langchain/core/messages';
import { messagesDeltaReducer, Overwrite, REMOVE_ALL_MESSAGES } from '@langchain/langgraph';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CtxloomError } from '../core/errors.ts';
import { Blackboard } from './blackboard.ts';
import { humanMessageId, inputKey } from './message-ids.ts';
import { appendResultsReducer, ledgerReducer } from './reducers.ts';
import { StateBuilder } from './state-builder.ts';
import type { MapReduceResult } from './types.ts';

type Call =
  | { type: 'append'; count: number }
  | { type: 'replace'; count: number }
  | { type: 'accept'; input: string }
  | { type: 'init-plan'; tasks: string[] }
  | { type: 'append-result'; task: string }
  | { type: 'deliverable'; key: string }
  | { type: 'todo'; clear: boolean }
  | { type: 'finish' }
  | { type: 'retry' }
  | { type: 'timeline' };

const task = fc.constantFrom('t1', 't2', 't3');
const call: fc.Arbitrary<Call> = fc.oneof(
  fc.record({ type: fc.constant('append' as const), count: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ type: fc.constant('replace' as const), count: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ type: fc.constant('accept' as const), input: fc.constantFrom('in-1', 'in-2', 'in-3') }),
  fc.record({ type: fc.constant('init-plan' as const), tasks: fc.uniqueArray(task, { maxLength: 3 }) }),
  fc.record({ type: fc.constant('append-result' as const), task }),
  fc.record({ type: fc.constant('deliverable' as const), key: fc.constantFrom('writer', 'critic') }),
  fc.record({ type: fc.constant('todo' as const), clear: fc.boolean() }),
  fc.constant({ type: 'finish' as const }),
  fc.constant({ type: 'retry' as const }),
  fc.constant({ type: 'timeline' as const }),
);

const initialMessages = [
  new HumanMessage({ content: 'q', id: 'human:s:in-1' }),
  new AIMessage({ content: 'a', id: 'm0' }),
];
const initial = {
  session_id: 's',
  messages: initialMessages,
  processed_inputs: [inputKey({ sessionId: 's', inputId: 'in-1' })],
  mapreduce_results: [{ taskId: 't1', status: 'ok', output: 'done' }] as MapReduceResult[],
};

describe('StateBuilder reducer rules', () => {
  it('never produces a patch that breaks a reducer rule, over random module-call sequences', () => {
    fc.assert(
      fc.property(fc.array(call, { maxLength: 12 }), (calls) => {
        let counter = 0;
        const sb = new StateBuilder(initial, { now: () => 0, newId: () => `gen-${counter++}` });
        // Reference model of the history and results the patch must produce.
        let modelIds = initialMessages.map((message) => message.id as string);
        const ledger = new Set(initial.processed_inputs);
        let modelResults = initial.mapreduce_results.map((result) => result.taskId);
        let reset = false;
        let appended = false;
        for (const step of calls) {
          try {
            switch (step.type) {
              case 'append': {
                const delta = Array.from({ length: step.count }, () => new AIMessage({ content: 'x' }));
                const first = counter;
                sb.messages.append(delta);
                // Id-less messages get the next generated ids, in order.
                modelIds = [...modelIds, ...delta.map((_, index) => `gen-${first + index}`)];
                break;
              }
              case 'replace': {
                const all = Array.from({ length: step.count }, () => new AIMessage({ content: 'y' }));
                const first = counter;
                sb.messages.replace(all);
                modelIds = all.map((_, index) => `gen-${first + index}`);
                break;
              }
              case 'accept': {
                const key = inputKey({ sessionId: 's', inputId: step.input });
                const accepted = sb.messages.acceptInput({ inputId: step.input, content: 'hi' });
                expect(accepted).toBe(!ledger.has(key));
                if (accepted) {
                  ledger.add(key);
                  const id = humanMessageId({ sessionId: 's', inputId: step.input });
                  if (!modelIds.includes(id)) modelIds = [...modelIds, id];
                }
                break;
              }
              case 'init-plan':
                sb.mapreduce.initPlan({
                  goal: 'g',
                  understanding: 'u',
                  tasks: step.tasks.map((id) => ({ id, description: id })),
                });
                expect(reset || appended).toBe(false);
                reset = true;
                modelResults = [];
                break;
              case 'append-result': {
                const added = sb.mapreduce.appendResult({ taskId: step.task, status: 'ok', output: 'r' });
                expect(reset).toBe(false);
                expect(added).toBe(!modelResults.includes(step.task));
                if (added) {
                  appended = true;
                  modelResults = [...modelResults, step.task];
                }
                break;
              }
              case 'deliverable':
                sb.deliverables.recordSaved(step.key);
                break;
              case 'todo':
                if (step.clear) sb.todo.clear();
                else sb.todo.replace({ items: [{ id: '1', title: 'x', status: 'pending' }] });
                break;
              case 'finish':
                sb.routing.finishAgent({ status: 'completed' });
                break;
              case 'retry':
                sb.react.incErrorRetry();
                break;
              case 'timeline':
                sb.timeline.append([{ kind: 'k', text: 't' }]);
                break;
            }
          } catch (error) {
            // A refused call is the builder enforcing a rule; anything else is a bug.
            expect(CtxloomError.is(error, 'reducer-violation')).toBe(true);
          }
        }
        const patch = sb.patch();
        for (const key of Object.keys(patch)) expect(Blackboard.keys.has(key)).toBe(true);
        if (patch.messages !== undefined) {
          expect(patch.messages).not.toBeInstanceOf(Overwrite);
          const messages = patch.messages as BaseMessage[];
          messages.forEach((message, index) => {
            if (RemoveMessage.isInstance(message)) {
              expect(index).toBe(0);
              expect(message.id).toBe(REMOVE_ALL_MESSAGES);
            } else {
              expect(message.id).toBeTruthy();
            }
          });
        }
        const results = patch.mapreduce_results;
        if (results instanceof Overwrite) expect(results.value).toEqual([]);
        // Through LangGraph's own reducers the patch yields exactly the model: no duplicates.
        const finalMessages =
          patch.messages === undefined
            ? initialMessages
            : messagesDeltaReducer(initialMessages, [patch.messages as BaseMessage[]]);
        expect(finalMessages.map((message) => message.id)).toEqual(modelIds);
        const finalResults =
          results === undefined
            ? initial.mapreduce_results
            : results instanceof Overwrite
              ? []
              : appendResultsReducer(initial.mapreduce_results, [results as MapReduceResult[]]);
        expect(finalResults.map((result) => result.taskId)).toEqual(modelResults);
        const finalLedger =
          patch.processed_inputs === undefined
            ? initial.processed_inputs
            : ledgerReducer(initial.processed_inputs, [patch.processed_inputs as string[]]);
        expect(new Set(finalLedger)).toEqual(ledger);
      }),
      { numRuns: 400, seed: 20_261_122 },
    );
  });
});
