import { describe, expect, it } from 'vitest';
import { modelTimeoutFromEnv } from './model-error-log.ts';

describe('modelTimeoutFromEnv', () => {
  it('reads CTXLOOM_MODEL_TIMEOUT_MS as a plain decimal, anything else as no number the engine accepts', () => {
    expect(modelTimeoutFromEnv({})).toEqual({});
    expect(modelTimeoutFromEnv({ CTXLOOM_MODEL_TIMEOUT_MS: ' 5000 ' })).toEqual({ modelTimeoutMs: 5000 });
    // Number() would read these as 16, 10 and 1: a typo must not become a timeout.
    for (const typed of ['0x10', '1e1', '1.0'])
      expect(modelTimeoutFromEnv({ CTXLOOM_MODEL_TIMEOUT_MS: typed }).modelTimeoutMs).toBeNaN();
  });
});
