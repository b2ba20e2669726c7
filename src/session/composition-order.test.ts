import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatReport, type Message } from '../core/index.ts';
import { createTestNotebook } from '../server/test-workspace.test-support.ts';
import { createSessionEngine } from './create-session-engine.ts';
import { createFileSessionStore } from './file-session-store.ts';

const SESSION = 'raft-consensus';

/** Position of the last context layer message and of the first history message. */
function positions(messages: readonly Message[]) {
  const isContext = (message: Message) => message.id.startsWith('layer:') && message.id !== 'layer:system';
  const lastContext = messages.findLastIndex(isContext);
  const firstHistory = messages.findIndex((message) => !message.id.startsWith('layer:'));
  return { lastContext, firstHistory };
}

describe('the composition order of a session (layers.order)', () => {
  let notebook: Awaited<ReturnType<typeof createTestNotebook>>;
  beforeEach(async () => {
    notebook = await createTestNotebook();
  });
  afterEach(async () => {
    await notebook.cleanup();
  });

  async function compileWith(order: string | undefined) {
    const path = join(notebook.root, SESSION, 'context-config.json');
    const manifest = JSON.parse(await readFile(path, 'utf8')) as { layers?: Record<string, unknown> };
    if (order !== undefined) manifest.layers = { ...manifest.layers, order };
    await writeFile(path, JSON.stringify(manifest, null, 2));
    const { workspace } = notebook;
    return createSessionEngine({ workspace, store: createFileSessionStore({ workspace }) }).compile(SESSION);
  }

  it('sends the cache-friendly order by default, and says so in the report', async () => {
    const compiled = await compileWith(undefined);
    expect(compiled.report.order).toBe('cache-friendly');
    const { lastContext, firstHistory } = positions(compiled.messages);
    // Volatile layers come after the history, as user text just before the query.
    expect(lastContext).toBeGreaterThan(firstHistory);
    expect(formatReport(compiled.report)).toContain('order cache-friendly');
  });

  it("sends seed 000's order when the manifest chooses `default`: every context layer before the history", async () => {
    const compiled = await compileWith('default');
    expect(compiled.report.order).toBe('default');
    const { lastContext, firstHistory } = positions(compiled.messages);
    expect(lastContext).toBeGreaterThanOrEqual(0);
    expect(lastContext).toBeLessThan(firstHistory);
    expect(formatReport(compiled.report)).toContain(
      "order seed 000's (every context layer before the history)",
    );
  });

  it('refuses an unknown order with invalid-config naming layers.order', async () => {
    await expect(compileWith('newest-first')).rejects.toMatchObject({
      code: 'invalid-config',
      message: expect.stringContaining('layers.order'),
    });
  });
});
