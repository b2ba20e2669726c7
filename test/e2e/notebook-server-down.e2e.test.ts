// The notebook when its server goes away in the middle of a turn: the page says it no longer
// follows the server, keeps working without uncaught errors, and loses nothing the user typed.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createOfflineModel } from '../../src/llm/index.ts';
import { type NotebookServer, startNotebookServer } from '../../src/server/index.ts';
import { openWorkspace } from '../../src/workspace/index.ts';
import { launchChromium, poll, screenshot, serveExampleCopy } from './notebook-browser.ts';

let root: string;
let server: NotebookServer;
let webRoot: string;
let browser: Browser;
let page: Page;
/** Errors the page did not catch (an unhandled rejection is one). */
const pageErrors: string[] = [];

beforeAll(async () => {
  // A slow offline model (a chunk every 150 ms), so the server can stop while it answers.
  ({ root, server, webRoot } = await serveExampleCopy('ctxloom-e2e-down-', 150));
  browser = await launchChromium(inject('chromiumPath'));
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(server.browserUrl);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close().catch(() => undefined);
  if (root) await rm(root, { recursive: true, force: true });
});

describe('the notebook when the server stops mid-turn', () => {
  it('stops saying "live", throws nothing uncaught, gives an unsent message back, and catches up when back', async () => {
    try {
      await poll(() => page.locator('.live-dot.on').count(), { timeout: 20_000 }).toBe(1);
      const input = page.getByTestId('chat-input');
      await input.click();
      await page.keyboard.type('What is the election restriction in Raft?');
      await page.keyboard.press('Escape');
      await page.keyboard.press('Enter');
      // The answer is streaming: its report chip is there, the Stop button too.
      const answer = page.locator('.message.assistant').last();
      await poll(() => answer.getByTestId('report-chip').count(), { timeout: 30_000 }).toBe(1);
      await poll(() => page.getByRole('button', { name: 'Stop' }).count()).toBe(1);

      await server.close();

      // The page no longer follows the server's changes, and says so.
      await poll(() => page.locator('.live-dot.on').count(), { timeout: 15_000 }).toBe(0);
      await poll(() => page.locator('.live-dot').textContent()).toBe('reconnecting…');
      // The broken stream ends the turn with its error shown, not an uncaught one.
      await poll(() => page.getByRole('button', { name: 'Stop' }).count(), { timeout: 15_000 }).toBe(0);
      await poll(() => page.locator('.chat-error').count()).toBe(1);
      await page.waitForTimeout(1_000);
      expect(pageErrors).toEqual([]);

      // A message sent now never reaches the server: it is not shown as sent, it goes back
      // into the input, and the page says why.
      const users = await page.locator('.message.user').count();
      await input.click();
      await page.keyboard.type('another question');
      await page.keyboard.press('Escape');
      await page.keyboard.press('Enter');
      await poll(() => page.getByTestId('not-sent').textContent(), { timeout: 15_000 }).toBe(
        'Not sent (the server could not be reached); your message is back in the input.',
      );
      expect(await page.locator('.message.user').count()).toBe(users);
      expect(await input.textContent()).toBe('another question');
      // Typing again clears the notice.
      await page.keyboard.type('!');
      await poll(() => page.getByTestId('not-sent').count()).toBe(0);
      expect(pageErrors).toEqual([]);

      // While it is away, another writer adds to the history; back on the same port and token,
      // the page is live again and shows that message without a reload.
      const file = join(root, 'raft-consensus', 'messages.json');
      const stored = JSON.parse(await readFile(file, 'utf8')) as unknown[];
      stored.push({
        id: 'written-while-away',
        role: 'user',
        content: 'written while the server was away',
        metadata: { createdAt: new Date().toISOString() },
      });
      await writeFile(file, `${JSON.stringify(stored, null, 2)}\n`);
      server = await startNotebookServer({
        workspace: openWorkspace({ root }),
        model: { model: createOfflineModel({ chunkDelayMs: 0 }), spec: 'offline', offline: true },
        port: server.port,
        token: server.token,
        webRoot,
      });
      await poll(() => page.locator('.live-dot.on').count(), { timeout: 30_000 }).toBe(1);
      await poll(() => page.locator('[data-message-id="written-while-away"]').count(), {
        timeout: 15_000,
      }).toBe(1);
      expect(pageErrors).toEqual([]);
      await screenshot(page, 'server-down-mid-turn');
    } catch (error) {
      await screenshot(page, 'failure-server-down');
      throw error;
    }
  }, 120_000);
});
