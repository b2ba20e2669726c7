// The preview's Compress button while its request is in flight: disabled, aria-busy and
// labelled as working, in the page's language, so a second click starts no second compression;
// back to normal once the server answers, with success or with an error.
import type { Page, Route } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { poll, screenshot, servedNotebookPage } from './notebook-browser.ts';

const notebook = servedNotebookPage('ctxloom-e2e-compress-busy-');

/**
 * Holds every compress request of `page` until `release` is called, then lets `answer` handle
 * it (the real server by default). `count` reads how many requests were made.
 */
async function holdCompress(
  page: Page,
  answer: (route: Route) => Promise<void> = (route) => route.continue(),
) {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let requests = 0;
  await page.route('**/api/sessions/*/compress', async (route) => {
    requests += 1;
    await released;
    await answer(route);
  });
  return { release, count: () => requests };
}

/** The button's state as a user and a screen reader meet it. */
function stateOf(page: Page) {
  return page.locator('[aria-labelledby="preview-title"] .panel-head button').evaluate((button) => ({
    text: button.textContent,
    disabled: (button as HTMLButtonElement).disabled,
    busy: button.getAttribute('aria-busy'),
  }));
}

/** The preview's status note (what the last compression did, or why it failed). */
function noteOf(page: Page) {
  return page.locator('[aria-labelledby="preview-title"] p[role="status"]').textContent();
}

describe('the Compress history button', () => {
  it('is disabled and busy while compressing, takes one request for a double click, and comes back after', async () => {
    const page = notebook.page;
    try {
      await page.goto(`${notebook.server.url}/?lang=en&session=raft-consensus`);
      const button = page.getByRole('button', { name: 'Compress history' });
      await poll(() => button.isEnabled(), { timeout: 20_000 }).toBe(true);
      const held = await holdCompress(page);

      await button.dblclick();
      const busy = page.getByRole('button', { name: 'Compressing…' });
      await poll(() => stateOf(page)).toEqual({
        text: 'Compressing…',
        disabled: true,
        busy: 'true',
      });
      await poll(held.count).toBe(1);
      await busy.click({ force: true }); // a disabled button takes no click
      await screenshot(page, 'compress-busy-1440');

      held.release();
      await poll(() => stateOf(page)).toEqual({
        text: 'Compress history',
        disabled: false,
        busy: 'false',
      });
      await poll(() => noteOf(page)).toMatch(/^Summarised \d+ more messages/u);
      expect(held.count()).toBe(1);
    } catch (error) {
      await screenshot(page, 'failure-compress-busy');
      throw error;
    } finally {
      await page.unrouteAll({ behavior: 'wait' });
    }
  }, 120_000);

  it('says it is working in Chinese, and comes back after an error with the error shown', async () => {
    const page = notebook.page;
    try {
      await page.goto(`${notebook.server.url}/?lang=zh&session=raft-consensus`);
      const button = page.getByRole('button', { name: '压缩历史' });
      await poll(() => button.isEnabled(), { timeout: 20_000 }).toBe(true);
      const held = await holdCompress(page, (route) =>
        route.fulfill({
          status: 500,
          contentType: 'application/json',
          body: JSON.stringify({ error: { code: 'internal', message: 'the summariser failed' } }),
        }),
      );

      await button.click();
      await poll(() => stateOf(page)).toEqual({ text: '正在压缩…', disabled: true, busy: 'true' });
      await screenshot(page, 'compress-busy-1440-zh');

      held.release();
      await poll(() => stateOf(page)).toEqual({ text: '压缩历史', disabled: false, busy: 'false' });
      await poll(() => noteOf(page)).toBe('the summariser failed');
      expect(held.count()).toBe(1);
    } catch (error) {
      await screenshot(page, 'failure-compress-busy-zh');
      throw error;
    } finally {
      await page.unrouteAll({ behavior: 'wait' });
    }
  }, 120_000);
});
