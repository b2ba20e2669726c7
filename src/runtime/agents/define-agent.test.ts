import { describe, expect, it } from 'vitest';
import { BLACKBOARD_KEYS } from '../../state/index.ts';
import { textModel } from '../processes/mock-model.test-support.ts';
import { defineAgent } from './define-agent.ts';

describe('defineAgent', () => {
  it('rejects an agent id equal to any Blackboard field name with a typed error', () => {
    const model = textModel(() => 'ok');
    expect(BLACKBOARD_KEYS.length).toBeGreaterThan(20);
    for (const id of BLACKBOARD_KEYS) {
      expect(() => defineAgent({ id, systemPrompt: 's', model })).toThrow(
        expect.objectContaining({ code: 'invalid-argument', path: 'id' }),
      );
    }
    expect(defineAgent({ id: 'writer', systemPrompt: 's', model }).id).toBe('writer');
  });
});
