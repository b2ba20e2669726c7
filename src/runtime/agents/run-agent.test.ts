import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { HumanMessage } from '@langchain/core/messages';
import { jsonSchema, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { type AnyModelMessage, fromModelMessages } from '../../ai-sdk/from-model-messages.ts';
import type { CompiledContext } from '../../core/index.ts';
import { countToolDefinitions, withTokenCache } from '../../core/index.ts';
import { StateBuilder } from '../../state/index.ts';
import { getTokenCounter } from '../../tokenizers/index.ts';
import { createCompressionBlackboard } from '../compression/compression-blackboard.ts';
import { scriptedModel } from '../processes/mock-model.test-support.ts';
import { createReactAgent } from './create-react-agent.ts';
import { defineAgent } from './define-agent.ts';
import { processRule } from './process-rules.ts';
import { runAgent } from './run-agent.ts';

const counter = withTokenCache(getTokenCounter('gpt-4o'));
const file = (name: string) =>
  Array.from(
    { length: 60 },
    (_, index) => `## ${name} ${index}\nThe ${name} job loads partition ${index}.`,
  ).join('\n\n');

/** A model that reads `f1`…`f<calls>` one call at a time, then answers. */
function toolModel(calls: number) {
  return scriptedModel((_options, index) =>
    index < calls
      ? [
          {
            type: 'tool-call',
            toolCallId: `c${index + 1}`,
            toolName: 'read_file',
            input: `{"path":"f${index + 1}"}`,
          },
        ]
      : [{ type: 'text', text: 'Reviewed.' }],
  );
}

function sentTokens(params: LanguageModelV4CallOptions): number {
  return (
    counter.countMessages(fromModelMessages(params.prompt as unknown as AnyModelMessage[]).messages) +
    countToolDefinitions(
      (params.tools ?? []).flatMap((entry) =>
        entry.type === 'function'
          ? [
              {
                name: entry.name,
                ...(entry.description === undefined ? {} : { description: entry.description }),
                inputSchema: entry.inputSchema,
              },
            ]
          : [],
      ),
      counter,
    )
  );
}

const readFile = tool({
  description: 'Read a file',
  inputSchema: jsonSchema<{ path: string }>({ type: 'object', properties: { path: { type: 'string' } } }),
  execute: async ({ path }: { path: string }) => file(path),
});

describe('createReactAgent', () => {
  it('runs a LangGraph node whose every model call is compiled under the window', async () => {
    const model = toolModel(4);
    const compiled: CompiledContext[] = [];
    const graph = createReactAgent({
      model,
      tools: { read_file: readFile },
      systemPrompt: 'You review ETL jobs.',
      counter,
      window: 5000,
      onCompile: (entry) => void compiled.push(entry),
    }).compile();
    const state = await graph.invoke({ messages: [new HumanMessage('Review f1..f4')] });
    expect(state.messages.at(-1)?.text).toBe('Reviewed.');
    expect(model.calls).toHaveLength(5);
    for (const [index, params] of model.calls.entries()) {
      const report = compiled[index]?.report;
      expect(sentTokens(params)).toBe(report?.totalTokens);
      expect(sentTokens(params)).toBeLessThanOrEqual(5000 - (report?.outputReserve ?? 0));
      expect(params.maxOutputTokens).toBe(report?.outputReserve);
    }
  });
});

describe('runAgent', () => {
  it('compiles every step of its tool loop under the window, each with its own report', async () => {
    const model = toolModel(4);
    const agent = defineAgent({
      id: 'reviewer',
      systemPrompt: 'You review ETL jobs.',
      model,
      window: 5000,
      maxSteps: 8,
      tools: {
        read_file: tool({
          description: 'Read a file',
          inputSchema: jsonSchema<{ path: string }>({
            type: 'object',
            properties: { path: { type: 'string' } },
          }),
          execute: async ({ path }: { path: string }) => file(path),
        }),
      },
    });
    const sb = new StateBuilder({}, { blackboard: createCompressionBlackboard() });
    const result = await runAgent({ agent, sb, rule: processRule('react'), counter, query: 'Review f1..f4' });
    expect(result.text).toBe('Reviewed.');
    expect(model.calls).toHaveLength(5);
    expect(result.steps).toHaveLength(5);
    for (const [index, params] of model.calls.entries()) {
      const sent =
        counter.countMessages(fromModelMessages(params.prompt as unknown as AnyModelMessage[]).messages) +
        countToolDefinitions(
          (params.tools ?? []).flatMap((entry) =>
            entry.type === 'function'
              ? [{ name: entry.name, description: entry.description ?? '', inputSchema: entry.inputSchema }]
              : [],
          ),
          counter,
        );
      const report = result.steps[index]?.report;
      expect(sent).toBe(report?.totalTokens);
      expect(sent).toBeLessThanOrEqual(5000 - (report?.outputReserve ?? 0));
      expect(params.maxOutputTokens).toBe(report?.outputReserve);
    }
  });
});
