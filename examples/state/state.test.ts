import { afterEach, describe, expect, it, vi } from 'vitest';
import { expectQuotedWhole } from '../doc-examples.test-support.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('docs/state.md', () => {
  it('quotes its four examples whole, in order (the last two run against PostgreSQL in checkpoints.test.ts)', async () => {
    await expectQuotedWhole('docs/state.md', [
      'examples/state/state-builder.ts',
      'examples/state/guard-node.ts',
      'examples/state/checkpoint-savers.ts',
      'examples/state/sessions-on-checkpoints.ts',
    ]);
  });

  it('runs the StateBuilder node: one patch writes the reply (with a UUIDv7 id), the deliverable, the status and the timeline', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const { state } = await import('./state-builder.ts');
    const ids = state.messages.map((message) => message.id);
    expect(ids[0]).toBe('u1');
    expect(ids[1]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/u);
    expect(state.messages[1]?.content).toBe('Here are the release notes.');
    expect(log).toHaveBeenNthCalledWith(1, ids);
    expect(log).toHaveBeenNthCalledWith(2, ['writer'], 'completed', 'writer done');
  });

  it('runs the guarded user graph: the patch is stored, the typo is unknown-state-key', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    await import('./guard-node.ts');
    expect(log.mock.calls).toEqual([[2], ['unknown-state-key', 'gaol']]);
  });
});
