// A tool output longer than the chat shows: the cut is said, with how much is not shown.
import { describe, expect, it } from 'vitest';
import { ask, poll, screenshot, servedNotebookPage } from './notebook-browser.ts';

const notebook = servedNotebookPage('ctxloom-e2e-tool-output-');

describe('a long tool output in the chat', () => {
  it('shows its first 4,000 characters and says how many more there are', async () => {
    try {
      await poll(() => notebook.page.locator('.message.assistant').count(), {
        timeout: 20_000,
      }).toBeGreaterThan(0);
      const answers = await notebook.page.locator('.message.assistant').count();
      // messages.json is far longer than 4,000 characters: read_file returns ~20,000 of them.
      await ask(notebook.page, 'read messages.json', answers + 1);
      const response = await fetch(`${notebook.server.url}/api/sessions/raft-consensus`, {
        headers: { Authorization: `Bearer ${notebook.server.token}` },
      });
      const { messages } = (await response.json()) as {
        messages: { parts: { type: string; output?: unknown }[] }[];
      };
      const output = messages
        .at(-1)
        ?.parts.find((part) => part.type === 'dynamic-tool' || part.type.startsWith('tool-'))?.output;
      expect(typeof output).toBe('string');
      const full = output as string;
      expect(full.length).toBeGreaterThan(4000);

      const tool = notebook.page.locator('.message.assistant').last().getByTestId('tool-event').first();
      await tool.locator('summary').click();
      expect(await tool.locator('pre.tool-output').textContent()).toBe(full.slice(0, 4000));
      const cut = tool.getByTestId('tool-output-cut');
      expect(await cut.textContent()).toBe(
        `… ${(full.length - 4000).toLocaleString('en-US')} more characters not shown here`,
      );
      await screenshot(notebook.page, 'tool-output-cut');
    } catch (error) {
      await screenshot(notebook.page, 'failure-tool-output');
      throw error;
    }
  }, 120_000);
});
