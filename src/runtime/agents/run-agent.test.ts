import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { HumanMessage } from '@langchain/core/messages';
import { jsonSchema, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { hasEveryLine, nextArtifactCall } from '../../ai-sdk/follow-placeholders.test-support.ts';
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

/** A `read_file` tool answering with `read(path)`. */
const readFileTool = (read: (path: string) => string) =>
  tool({
    description: 'Read a file',
    inputSchema: jsonSchema<{ path: string }>({ type: 'object', properties: { path: { type: 'string' } } }),
    execute: async ({ path }: { path: string }) => read(path),
  });
const readFile = readFileTool(file);

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
        read_file: readFile,
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

describe('runAgent and a tool output over 40 % of the budget', () => {
  it('offers open_artifact over the store its placeholders name, so the output is read by pages', async () => {
    // 5,000 tokens (3,750 of input): a 2,400-token file is over the 1,500-token limit.
    const big = Array.from(
      { length: 160 },
      (_, index) => `line ${index}: the loader retries partition ${index} after ${index % 7} seconds.`,
    ).join('\n');
    expect(counter.countText(big)).toBeGreaterThan(1500);
    const model = scriptedModel((options, index) => {
      const follow = index === 0 ? undefined : nextArtifactCall(options.prompt);
      if (index === 0)
        return [{ type: 'tool-call', toolCallId: 'c0', toolName: 'read_file', input: '{"path":"big"}' }];
      if (follow !== undefined && index < 12)
        return [
          {
            type: 'tool-call',
            toolCallId: `o${index}`,
            toolName: 'open_artifact',
            input: JSON.stringify(follow),
          },
        ];
      return [{ type: 'text', text: 'Read.' }];
    });
    const agent = defineAgent({
      id: 'reader',
      systemPrompt: 'You read files.',
      model,
      window: 5000,
      maxSteps: 12,
      tools: {
        read_file: readFileTool(() => big),
      },
    });
    const sb = new StateBuilder({}, { blackboard: createCompressionBlackboard() });
    const result = await runAgent({ agent, sb, rule: processRule('react'), counter, query: 'Read big' });
    expect(result.text).toBe('Read.');
    // Every call offered the tool its placeholders name, counted in its report.
    for (const [index, params] of model.calls.entries()) {
      expect((params.tools ?? []).map((entry) => entry.name)).toContain('open_artifact');
      expect(sentTokens(params)).toBe(result.steps[index]?.report.totalTokens);
    }
    expect(result.steps[1]?.report.compaction).toContainEqual(
      expect.objectContaining({ type: 'placeholder', reason: 'oversized' }),
    );
    // The pages brought every line of the file into the calls.
    expect(model.calls.length).toBeGreaterThan(2);
    expect(
      hasEveryLine(
        model.calls.map((params) => params.prompt),
        big,
      ),
    ).toBe(true);
  });
});
