// The call report open in the URL: a reload, or back and forward, opens the same call again.
import { rm } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { NotebookServer } from '../../src/server/index.ts';
import {
  ask,
  launchChromium,
  openNotebookPage,
  poll,
  screenshot,
  serveExampleCopy,
} from './notebook-browser.ts';

let root: string;
let server: NotebookServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  ({ root, server } = await serveExampleCopy('ctxloom-e2e-call-url-', 0));
  browser = await launchChromium(inject('chromiumPath'));
  page = await openNotebookPage(browser, server.browserUrl);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('an open call report', () => {
  it('stays open across a reload and back/forward, and closing it leaves the URL', async () => {
    try {
      await poll(() => page.locator('.message.assistant').count(), { timeout: 20_000 }).toBeGreaterThan(0);
      await ask(page, 'What is a term in Raft?', (await page.locator('.message.assistant').count()) + 1);
      const chip = page.locator('.message.assistant button[data-call]').last();
      const callId = await chip.getAttribute('data-call');
      expect(callId).toBeTruthy();
      await chip.click();
      const report = page.getByTestId('call-report');
      await poll(() => report.getAttribute('data-call-id')).toBe(callId);

      await page.reload();
      await poll(() => report.getAttribute('data-call-id'), { timeout: 20_000 }).toBe(callId);
      expect(new URL(page.url()).searchParams.get('session')).toBe('raft-consensus');

      await page.goto('about:blank');
      await page.goBack();
      await poll(() => report.getAttribute('data-call-id'), { timeout: 20_000 }).toBe(callId);

      // Closed, it is no longer in the URL: a reload shows the preview.
      await report.getByRole('button', { name: 'Back to the preview' }).click();
      await poll(() => new URL(page.url()).searchParams.has('call')).toBe(false);
      await page.reload();
      await poll(() => page.getByTestId('preview-total').isVisible(), { timeout: 20_000 }).toBe(true);
      expect(await report.count()).toBe(0);

      // At 390 px a reload with a call open shows the Context tab with the report.
      await chip.click();
      await poll(() => report.getAttribute('data-call-id')).toBe(callId);
      await page.setViewportSize({ width: 390, height: 844 });
      await page.reload();
      await poll(() => report.isVisible(), { timeout: 20_000 }).toBe(true);
      expect(await page.locator('.panel-tabs [role="tab"][aria-selected="true"]').textContent()).toBe(
        'Context',
      );
      await screenshot(page, 'call-url-390-reloaded');
    } catch (error) {
      await screenshot(page, 'failure-call-url');
      throw error;
    }
  }, 120_000);
});
