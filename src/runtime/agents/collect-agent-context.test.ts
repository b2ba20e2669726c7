import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { StateBuilder } from '../../state/index.ts';
import { textModel } from '../processes/mock-model.test-support.ts';
import { collectAgentContext } from './collect-agent-context.ts';
import { defineAgent } from './define-agent.ts';
import { processRule } from './process-rules.ts';

describe('collectAgentContext', () => {
  it('hands the compile a frozen history, so every compile of the call prepares it once', () => {
    const sb = new StateBuilder({
      messages: [
        new HumanMessage({ id: 'u1', content: 'What is a term?' }),
        new AIMessage({ id: 'a1', content: 'A leader epoch.' }),
        new HumanMessage({ id: 'u2', content: 'And a log?' }),
      ],
    });
    const agent = defineAgent({ id: 'reader', systemPrompt: 'Answer.', model: textModel(() => 'ok') });
    const request = collectAgentContext({ agent, sb, rule: processRule('react') });
    expect(request.history?.map((message) => message.id)).toEqual(['u1', 'a1', 'u2']);
    expect(Object.isFrozen(request.history)).toBe(true);
    expect(request.query).toMatchObject({ id: 'u2' });
  });
});
