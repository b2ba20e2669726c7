// Text on the accent colour stays readable in both colour schemes: WCAG AA asks 4.5:1 for
// text of this size (the Send button, a dialog's confirm button, the skip link).
import { describe, expect, it } from 'vitest';
import { poll, screenshot, servedNotebookPage } from './notebook-browser.ts';

const notebook = servedNotebookPage('ctxloom-e2e-contrast-');

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
      await notebook.page.emulateMedia({ colorScheme: scheme });
      await notebook.page.goto(`${notebook.server.url}/?session=raft-consensus`);
      const send = notebook.page.locator('.composer button.send');
      await poll(() => send.isEnabled(), { timeout: 20_000 }).toBe(true);
      expect(await send.evaluate(contrastOf)).toBeGreaterThanOrEqual(4.5);
      await notebook.page.locator('.skip-link').focus();
      expect(await notebook.page.locator('.skip-link').evaluate(contrastOf)).toBeGreaterThanOrEqual(4.5);
      await screenshot(notebook.page, `accent-contrast-${scheme}`);
    }, 120_000);
  }
});
