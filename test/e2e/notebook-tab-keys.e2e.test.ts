// Every tab list of the notebook follows the WAI-ARIA tabs pattern: one tab stop (the selected
// tab), Left/Right move to the previous/next tab and select it (wrapping), Home/End the first
// and last, and focus follows.
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { poll, screenshot, servedNotebookPage } from './notebook-browser.ts';

const notebook = servedNotebookPage('ctxloom-e2e-tab-keys-');

/** Each tab of `list`: its name, whether it is selected, its tabindex and whether it has focus. */
function tabsOf(list: Locator) {
  return list.getByRole('tab').evaluateAll((tabs) =>
    tabs.map((tab) => ({
      name: tab.textContent,
      selected: tab.getAttribute('aria-selected') === 'true',
      tabIndex: tab.getAttribute('tabindex'),
      focused: document.activeElement === tab,
    })),
  );
}

/** The one selected tab of `list`, which is also its only tab stop and has focus. */
async function focusedSelected(list: Locator): Promise<string | null | undefined> {
  const tabs = await tabsOf(list);
  const selected = tabs.filter((tab) => tab.selected);
  const stops = tabs.filter((tab) => tab.tabIndex !== '-1');
  if (selected.length !== 1 || stops.length !== 1 || stops[0]?.name !== selected[0]?.name) return undefined;
  return selected[0]?.focused ? selected[0].name : null;
}

/** Presses `key` and waits until `name` is the selected, focused and only tabbable tab. */
async function press(page: Page, list: Locator, key: string, name: string): Promise<void> {
  await page.keyboard.press(key);
  await poll(() => focusedSelected(list)).toBe(name);
}

describe('the notebook’s tab lists', () => {
  it('at 1440 px: the chat/editor tabs move with the arrow keys, Home and End, one tab stop', async () => {
    const page = notebook.page;
    try {
      await page.goto(`${notebook.server.url}/?lang=en&session=raft-consensus`);
      const list = page.getByRole('tablist', { name: 'Chat or editor' });
      const chat = page.locator('#center-chat');
      const editor = page.locator('#center-editor');
      await poll(() => chat.isVisible(), { timeout: 20_000 }).toBe(true);
      // Every tab list on the page has exactly one tab stop, its selected tab.
      for (const tablist of await page.getByRole('tablist').all()) {
        expect(await focusedSelected(tablist)).not.toBeUndefined();
      }
      expect(await tabsOf(list)).toEqual([
        { name: 'Chat', selected: true, tabIndex: '0', focused: false },
        { name: 'Editor', selected: false, tabIndex: '-1', focused: false },
      ]);

      await list.getByRole('tab', { name: 'Chat' }).focus();
      await press(page, list, 'ArrowRight', 'Editor');
      expect(await editor.isVisible()).toBe(true);
      expect(await chat.isVisible()).toBe(false);
      await screenshot(page, 'tab-keys-1440-editor');
      await press(page, list, 'ArrowRight', 'Chat'); // wraps
      expect(await chat.isVisible()).toBe(true);
      await press(page, list, 'ArrowLeft', 'Editor'); // wraps back
      await press(page, list, 'Home', 'Chat');
      await press(page, list, 'End', 'Editor');
      await press(page, list, 'ArrowLeft', 'Chat');
      // A key with a modifier is the browser's (Alt+Left is Back): Ctrl+Right moves nothing, so
      // Left from Chat wraps to Editor.
      await page.keyboard.press('Control+ArrowRight');
      await press(page, list, 'ArrowLeft', 'Editor');
      await press(page, list, 'Home', 'Chat');
      // Tab leaves the list: the other tab is not a tab stop.
      await page.keyboard.press('Tab');
      expect(
        await page.evaluate(() =>
          document.activeElement?.closest('[role="tablist"]')?.getAttribute('aria-label'),
        ),
      ).not.toBe('Chat or editor');
    } catch (error) {
      await screenshot(page, 'failure-tab-keys-1440');
      throw error;
    }
  }, 120_000);

  it('at 390 px: the Files · Session · Context panel tabs move with the keys and show their panel', async () => {
    const page = notebook.page;
    try {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${notebook.server.url}/?lang=en&session=raft-consensus`);
      const list = page.getByRole('tablist', { name: 'Panels' });
      await poll(() => page.locator('#center-chat').isVisible(), { timeout: 20_000 }).toBe(true);
      const shown = () =>
        page
          .locator('#panel-files, #panel-main, #panel-context')
          .evaluateAll((panels) =>
            panels.filter((panel) => panel.checkVisibility()).map((panel) => panel.id),
          );
      expect(await tabsOf(list)).toEqual([
        { name: 'Files', selected: false, tabIndex: '-1', focused: false },
        { name: 'Session', selected: true, tabIndex: '0', focused: false },
        { name: 'Context', selected: false, tabIndex: '-1', focused: false },
      ]);

      await list.getByRole('tab', { name: 'Session' }).focus();
      await press(page, list, 'ArrowRight', 'Context');
      await poll(shown).toEqual(['panel-context']);
      await poll(() => page.getByTestId('preview-total').isVisible(), { timeout: 20_000 }).toBe(true);
      await screenshot(page, 'tab-keys-390-context');
      await press(page, list, 'ArrowRight', 'Files'); // wraps
      await poll(shown).toEqual(['panel-files']);
      await press(page, list, 'ArrowLeft', 'Context'); // wraps back
      await press(page, list, 'Home', 'Files');
      await press(page, list, 'End', 'Context');
      await press(page, list, 'ArrowLeft', 'Session');
      await poll(shown).toEqual(['panel-main']);
      await screenshot(page, 'tab-keys-390-chat');
    } catch (error) {
      await screenshot(page, 'failure-tab-keys-390');
      throw error;
    } finally {
      await page.setViewportSize({ width: 1440, height: 900 });
    }
  }, 120_000);
});
