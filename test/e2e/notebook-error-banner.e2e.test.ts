// An error naming a long path: the banner wraps it and its close button stays on screen.
import { rm } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { NotebookServer } from '../../src/server/index.ts';
import {
  answerDialog,
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
  ({ root, server } = await serveExampleCopy('ctxloom-e2e-error-banner-', 0));
  browser = await launchChromium(inject('chromiumPath'));
  page = await openNotebookPage(browser, server.browserUrl);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('the error banner', () => {
  for (const width of [1440, 390]) {
    it(`at ${width} px wraps a refused 300-character name and can be closed`, async () => {
      try {
        await page.setViewportSize({ width, height: 900 });
        await page.goto(`${server.url}/?session=raft-consensus`);
        if (width < 900) await page.locator('.panel-tabs [role="tab"]').nth(0).click();
        const rename = page.getByRole('button', { name: 'Rename milestones.md' });
        await poll(() => rename.count(), { timeout: 20_000 }).toBe(1);
        await rename.click();
        // A segment over 255 bytes: the server refuses it (400 invalid-argument), naming it.
        await answerDialog(page, `${'x'.repeat(300)}.md`);
        const banner = page.locator('.error-banner');
        await poll(() => banner.count()).toBe(1);
        expect(await banner.textContent()).toContain('longer than 255 bytes');
        const fits = await banner.evaluate((element) => ({
          banner: element.scrollWidth <= element.clientWidth,
          page: document.documentElement.scrollWidth <= window.innerWidth,
        }));
        expect(fits).toEqual({ banner: true, page: true });
        const close = banner.getByRole('button', { name: 'Close' });
        const box = await close.boundingBox();
        expect(box).not.toBeNull();
        expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(width);
        await screenshot(page, `error-banner-long-path-${width}`);
        await close.click();
        await poll(() => banner.count()).toBe(0);
      } catch (error) {
        await screenshot(page, `failure-error-banner-${width}`);
        throw error;
      }
    }, 120_000);
  }
});
