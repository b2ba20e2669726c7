// Shared set-up of the notebook's browser tests: the built UI, Chromium, a page that fails the
// test on a page error, and a patient `expect.poll` for a busy shared machine.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { ensureWebBuild } from '../../src/server/ensure-web-build.ts';

/** The example workspace the browser tests copy and serve. */
export const EXAMPLE = fileURLToPath(new URL('../../examples/notebook', import.meta.url));
/** Screenshots, kept as test artefacts (git-ignored). */
export const ARTIFACTS = fileURLToPath(new URL('./artifacts/', import.meta.url));

/** `expect.poll` with room for a busy shared machine (2 cores, other sessions' tests). */
export const poll = <T>(read: () => T | Promise<T>, options: { timeout?: number } = {}) =>
  expect.poll(read, { timeout: 10_000, ...options });

/** The built web UI (`dist/web`), built first when missing or stale; throws when it cannot be. */
export async function requireWebBuild(): Promise<string> {
  const webRoot = await ensureWebBuild(() => undefined);
  if (webRoot === undefined) throw new Error('the web UI could not be built (npm run build:web)');
  await mkdir(ARTIFACTS, { recursive: true });
  return webRoot;
}

/** Headless Chromium at `executablePath`; a missing binary fails the test (it is never skipped). */
export async function launchChromium(executablePath: string): Promise<Browser> {
  if (!existsSync(executablePath)) {
    throw new Error(
      `The notebook E2E tests need Chromium at ${executablePath} (test/support/chromium-service.ts: CHROMIUM_PATH, Debian's chromium, or @sparticuz/chromium). They are not skipped.`,
    );
  }
  return chromium.launch({
    executablePath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
    ],
  });
}

/**
 * A page on the notebook: opening the printed URL sets the per-run token cookie, as a user's
 * first visit does. A page error fails the test.
 */
export async function openNotebookPage(
  browser: Browser,
  browserUrl: string,
  viewport = { width: 1440, height: 900 },
): Promise<Page> {
  const page = await browser.newPage({ viewport });
  page.on('pageerror', (error) => {
    throw error;
  });
  await page.goto(browserUrl);
  return page;
}

/** The preview's total input tokens as shown. */
export async function previewTokens(page: Page): Promise<number> {
  return Number(await page.getByTestId('preview-total').getAttribute('data-tokens'));
}

/** Saves a screenshot of `page` as `e2e-<name>.png` among the test artefacts. */
export function screenshot(page: Page, name: string): Promise<Buffer> {
  return page.screenshot({ path: join(ARTIFACTS, `e2e-${name}.png`) });
}

/**
 * Answers the notebook's open dialog (new/rename/delete ask in a modal `<dialog>`, not
 * `prompt()`): types `value` into its field when given, then confirms.
 */
export async function answerDialog(page: Page, value?: string): Promise<void> {
  const dialog = page.locator('dialog.dialog');
  await poll(() => dialog.isVisible()).toBe(true);
  if (value !== undefined) await dialog.locator('input').fill(value);
  await dialog.locator('button[type="submit"]').click();
  await poll(() => dialog.count()).toBe(0);
}

/** Sends one chat message and waits until its answer is stored (the curation button shows). */
export async function ask(page: Page, text: string, answers: number): Promise<void> {
  const input = page.getByTestId('chat-input');
  await input.click();
  await page.keyboard.type(text);
  await page.keyboard.press('Escape'); // closes a completion list, if one opened
  await page.keyboard.press('Enter');
  const answer = page.locator('.message.assistant').nth(answers - 1);
  await poll(() => answer.locator('button[data-curate]').count(), { timeout: 30_000 }).toBe(1);
  await poll(() => page.getByRole('button', { name: 'Stop' }).count()).toBe(0);
}

export async function bodyText(message: ReturnType<Page['locator']>): Promise<string> {
  return ((await message.locator('.message-body').textContent()) ?? '').trim();
}

/** Tokens of one layer as the preview's table shows them (0 when the layer is absent). */
export async function layerTokens(page: Page, layer: string): Promise<number> {
  const cell = page.locator(`tr[data-layer="${layer}"] td.num`).first();
  if ((await cell.count()) === 0) return 0;
  return Number(((await cell.textContent()) ?? '').replace(/,/gu, ''));
}
