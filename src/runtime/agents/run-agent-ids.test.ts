import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import type { BlackboardState } from '../../state/index.ts';
import { createCharCounter } from '../../testing/index.ts';
import { SqliteSaver } from '../checkpoint/sqlite-saver.ts';
import { createSequentialProcess } from '../processes/sequential.ts';
import { submitInput } from '../session/submit-input.ts';
import { defineAgent } from './define-agent.ts';

describe('agent reply ids', () => {
  it('are generated locally: a provider repeating its response id never makes a reply replace another', async () => {
    let call = 0;
    const usage = {
      inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 1, text: 1, reasoning: 0 },
    };
    const model = new MockLanguageModelV4({
      doStream: async () => ({
        stream: simulateReadableStream({
          chunks: [
            { type: 'stream-start', warnings: [] },
            // A gateway that answers every call with the same response id.
            { type: 'response-metadata', id: 'resp-same' },
            { type: 'text-start', id: 't' },
            { type: 'text-delta', id: 't', delta: `answer ${++call}` },
            { type: 'text-end', id: 't' },
            { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
          ] satisfies LanguageModelV4StreamPart[],
        }),
      }),
    });
    const graph = createSequentialProcess({
      counter: createCharCounter(),
      agents: [defineAgent({ id: 'helper', systemPrompt: 'Help.', model })],
    }).compile({ checkpointer: new SqliteSaver({ path: ':memory:' }) });
    const config = { configurable: { thread_id: 'ids' } };
    for (const inputId of ['q1', 'q2']) {
      await submitInput({
        graph,
        config,
        input: { inputId, content: inputId },
        session: { namespace: 'n', sessionId: 's' },
      });
    }
    const state = (await graph.getState(config)).values as BlackboardState;
    expect(state.messages.map((message) => message.text)).toEqual(['q1', 'answer 1', 'q2', 'answer 2']);
    const ids = state.messages.map((message) => message.id);
    expect(new Set(ids).size).toBe(4);
    expect(ids.some((id) => id?.includes('resp-same'))).toBe(false);
  });
});
