import { describe, expect, it } from 'vitest';
import { generateEtlSessionScript } from './etl-session-script.ts';

describe('generateEtlSessionScript', () => {
  it('replays the same 200 turns for a seed and states each requirement verbatim in its turn', () => {
    const script = generateEtlSessionScript({ turns: 200, seed: 7 });
    expect(script).toHaveLength(200);
    expect(generateEtlSessionScript({ turns: 200, seed: 7 })).toEqual(script);
    expect(generateEtlSessionScript({ turns: 200, seed: 8 })).not.toEqual(script);
    const requirements = script.flatMap((turn) =>
      turn.requirements.map((sentence) => ({ sentence, user: turn.user })),
    );
    expect(requirements.length).toBeGreaterThan(60);
    for (const { sentence, user } of requirements) expect(user).toContain(sentence);
  });
});
