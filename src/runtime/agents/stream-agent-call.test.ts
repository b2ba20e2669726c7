import { AIMessageChunk, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { MemorySaver } from '@langchain/langgraph';
import { jsonSchema, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { countCallTokens } from '../../ai-sdk/index.ts';
import type { CompiledContext } from '../../core/index.ts';
import { StateBuilder } from '../../state/index.ts';
import { createCharCounter } from '../../testing/index.ts';
import { SqliteSaver } from '../checkpoint/sqlite-saver.ts';
import { scriptedModel } from '../processes/mock-model.test-support.ts';
import { createReactProcess, REACT_PLAN_CONTRACT, REACT_REFLECT_CONTRACT } from '../processes/react.ts';
import { createSequentialProcess } from '../processes/sequential.ts';
import { createReactAgent } from './create-react-agent.ts';
import { defineAgent } from './define-agent.ts';
import { processRule } from './process-rules.ts';
import { runAgent } from './run-agent.ts';

const counter = createCharCounter();
const REPLY = 'Every partition is loaded, then its row count is checked.';

const readFile = tool({
  description: 'Read a file',
  inputSchema: jsonSchema<{ path: string }>({ type: 'object', properties: { path: { type: 'string' } } }),
  execute: async ({ path }: { path: string }) => `${path}: loads partitions and counts rows.`,
});

/** Everything `graph.stream(…, { streamMode: 'messages' })` yields. */
async function messagesOf(
  stream: AsyncIterable<unknown>,
): Promise<{ message: BaseMessage; node: string | undefined }[]> {
  const out: { message: BaseMessage; node: string | undefined }[] = [];
  for await (const item of stream) {
    const [message, metadata] = item as [BaseMessage, Record<string, unknown>];
    out.push({ message, node: metadata.langgraph_node as string | undefined });
  }
  return out;
}

describe('agent calls in LangGraph’s messages stream mode', () => {
  it('createReactAgent streams one reply as many token chunks carrying the stored id, tool calls and results too, each call sent as reported', async () => {
    const model = scriptedModel((_options, index) =>
      index === 0
        ? [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: '{"path":"etl.md"}' }]
        : [{ type: 'text', text: REPLY }],
    );
    const compiled: CompiledContext[] = [];
    const graph = createReactAgent({
      model,
      tools: { read_file: readFile },
      systemPrompt: 'You review ETL jobs.',
      counter,
      window: 8000,
      onCompile: (entry) => void compiled.push(entry),
    }).compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: 'review-1' } };
    const streamed = await messagesOf(
      await graph.stream(
        { messages: [new HumanMessage({ id: 'u1', content: 'Review etl.md' })] },
        {
          ...config,
          streamMode: 'messages',
        },
      ),
    );
    const reply = (await graph.getState(config)).values.messages.at(-1);
    expect(reply?.text).toBe(REPLY);

    const tokens = streamed.filter(
      ({ message }) => AIMessageChunk.isInstance(message) && message.text !== '',
    );
    expect(tokens.length).toBeGreaterThan(1);
    expect(tokens.map(({ message }) => message.text).join('')).toBe(REPLY);
    expect(tokens.every(({ node }) => node === 'agent')).toBe(true);
    // All chunks of the reply carry one id, and the whole reply is not sent again after them.
    expect(tokens.every(({ message }) => message.id === reply?.id)).toBe(true);
    expect(streamed.filter(({ message }) => message.text === REPLY)).toHaveLength(0);
    // The tool call streams as a tool-call chunk; its result arrives with the node's output.
    const call = streamed.find(
      ({ message }) => AIMessageChunk.isInstance(message) && (message.tool_call_chunks?.length ?? 0) > 0,
    );
    expect((call?.message as AIMessageChunk | undefined)?.tool_call_chunks?.[0]).toMatchObject({
      id: 'c1',
      name: 'read_file',
      args: '{"path":"etl.md"}',
    });
    expect(
      streamed.some(({ message }) => ToolMessage.isInstance(message) && message.tool_call_id === 'c1'),
    ).toBe(true);
    // Streaming changes nothing of what is sent: every call is its report.
    expect(model.calls).toHaveLength(2);
    for (const [index, call] of model.calls.entries()) {
      expect(countCallTokens(call, counter)).toBe(compiled[index]?.report.totalTokens);
      expect(call.maxOutputTokens).toBe(compiled[index]?.report.outputReserve);
    }
  });

  it('a process agent node streams its reply token by token, with the id it is stored under', async () => {
    const model = scriptedModel(() => [{ type: 'text', text: REPLY }]);
    const graph = createSequentialProcess({
      counter,
      agents: [defineAgent({ id: 'helper', systemPrompt: 'You help.', model, window: 8000 })],
    }).compile({ checkpointer: new SqliteSaver({ path: ':memory:' }) });
    const config = { configurable: { thread_id: 'stream-1' } };
    const streamed = await messagesOf(
      await graph.stream(
        { messages: [new HumanMessage({ id: 'u1', content: 'What is a partition?' })] },
        {
          ...config,
          streamMode: 'messages',
        },
      ),
    );
    const tokens = streamed.filter(({ message }) => AIMessageChunk.isInstance(message));
    expect(tokens.length).toBeGreaterThan(1);
    expect(tokens.map(({ message }) => message.text).join('')).toBe(REPLY);
    const stored = ((await graph.getState(config)).values as { messages: BaseMessage[] }).messages.at(-1);
    expect(stored?.text).toBe(REPLY);
    expect(tokens.every(({ message }) => message.id === stored?.id)).toBe(true);
    expect(streamed).toHaveLength(tokens.length);
  });

  it('keeps calls whose answer is no conversation message (a plan, a reflection) out of the stream', async () => {
    const model = scriptedModel((options) => {
      const prompt = JSON.stringify(options.prompt);
      if (prompt.includes(REACT_PLAN_CONTRACT)) return [{ type: 'text', text: 'count the rows' }];
      if (prompt.includes(REACT_REFLECT_CONTRACT))
        return [{ type: 'text', text: 'DONE, the rows are counted' }];
      return [{ type: 'text', text: 'The rows are counted: 42.' }];
    });
    const graph = createReactProcess({
      counter,
      maxIterations: 1,
      agent: defineAgent({ id: 'worker', systemPrompt: 'You work.', model, window: 8000 }),
    }).compile({ checkpointer: new SqliteSaver({ path: ':memory:' }) });
    const streamed = await messagesOf(
      await graph.stream(
        { messages: [new HumanMessage({ id: 'u1', content: 'Count the rows' })] },
        {
          configurable: { thread_id: 'react-1' },
          streamMode: 'messages',
        },
      ),
    );
    expect(model.calls).toHaveLength(3);
    expect(streamed.map(({ message }) => message.text).join('')).toBe('The rows are counted: 42.');
    expect(streamed.length).toBeGreaterThan(1);
    expect(new Set(streamed.map(({ node }) => node))).toEqual(new Set(['react_act']));
  });

  it('fails as generateText did: the provider’s error is thrown, an aborted call throws an abort', async () => {
    const sb = new StateBuilder({});
    const failing = defineAgent({
      id: 'helper',
      systemPrompt: 'You help.',
      window: 8000,
      model: new MockLanguageModelV4({
        doStream: async () => {
          throw new Error('rate limited (429)');
        },
      }),
    });
    await expect(
      runAgent({ agent: failing, sb, rule: processRule('react'), counter, query: 'q' }),
    ).rejects.toThrow('rate limited (429)');
    const controller = new AbortController();
    const slow = defineAgent({
      id: 'helper',
      systemPrompt: 'You help.',
      window: 8000,
      model: scriptedModel(() => {
        controller.abort();
        return [{ type: 'text', text: REPLY }];
      }),
    });
    await expect(
      runAgent({
        agent: slow,
        sb,
        rule: processRule('react'),
        counter,
        query: 'q',
        signal: controller.signal,
      }),
    ).rejects.toThrow(/abort/i);
  });
});
