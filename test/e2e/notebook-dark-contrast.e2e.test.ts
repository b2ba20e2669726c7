// Text on the accent colour stays readable in both colour schemes: WCAG AA asks 4.5:1 for
// text of this size (the Send button, a dialog's confirm button, the skip link).
import { rm } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { NotebookServer } from '../../src/server/index.ts';
import { launchChromium, openNotebookPage, poll, screenshot, serveExampleCopy } from './notebook-browser.ts';

let root: string;
let server: NotebookServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  ({ root, server } = await serveExampleCopy('ctxloom-e2e-contrast-', 0));
  browser = await launchChromium(inject('chromiumPath'));
  page = await openNotebookPage(browser, server.browserUrl);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

/** The contrast ratio of an element's text colour against its own background colour. */
function contrastOf(element: Element): number {
  const style = getComputedStyle(element);
  const rgb = (color: string) => (color.match(/[\d.]+/gu) ?? []).slice(0, 3).map(Number);
  const luminance = (color: string) => {
    const [r = 0, g = 0, b = 0] = rgb(color).map((value) => {
      const channel = value / 255;
      return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [light, dark] = [luminance(style.color), luminance(style.backgroundColor)].sort((a, b) => b - a);
  return ((light ?? 0) + 0.05) / ((dark ?? 0) + 0.05);
}

describe('text on the accent colour', () => {
  for (const scheme of ['light', 'dark'] as const) {
    it(`reads at 4.5:1 or more in the ${scheme} scheme`, async () => {
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(`${server.url}/?session=raft-consensus`);
      const send = page.locator('.composer button.send');
      await poll(() => send.isEnabled(), { timeout: 20_000 }).toBe(true);
      expect(await send.evaluate(contrastOf)).toBeGreaterThanOrEqual(4.5);
      await page.locator('.skip-link').focus();
      expect(await page.locator('.skip-link').evaluate(contrastOf)).toBeGreaterThanOrEqual(4.5);
      await screenshot(page, `accent-contrast-${scheme}`);
    }, 120_000);
  }
});
