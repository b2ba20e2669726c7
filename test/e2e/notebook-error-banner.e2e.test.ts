// An error naming a long path: the banner wraps it and its close button stays on screen.
import { describe, expect, it } from 'vitest';
import { answerDialog, poll, screenshot, servedNotebookPage } from './notebook-browser.ts';

const notebook = servedNotebookPage('ctxloom-e2e-error-banner-');

describe('the error banner', () => {
  for (const width of [1440, 390]) {
    it(`at ${width} px wraps a refused 300-character name and can be closed`, async () => {
      try {
        await notebook.page.setViewportSize({ width, height: 900 });
        await notebook.page.goto(`${notebook.server.url}/?session=raft-consensus`);
        if (width < 900) await notebook.page.locator('.panel-tabs [role="tab"]').nth(0).click();
        const rename = notebook.page.getByRole('button', { name: 'Rename milestones.md' });
        await poll(() => rename.count(), { timeout: 20_000 }).toBe(1);
        await rename.click();
        // A segment over 255 bytes: the notebook.server refuses it (400 invalid-argument), naming it.
        await answerDialog(notebook.page, `${'x'.repeat(300)}.md`);
        const banner = notebook.page.locator('.error-banner');
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
        await screenshot(notebook.page, `error-banner-long-path-${width}`);
        await close.click();
        await poll(() => banner.count()).toBe(0);
      } catch (error) {
        await screenshot(notebook.page, `failure-error-banner-${width}`);
        throw error;
      }
    }, 120_000);
  }
});
