// Shared set-up of the notebook's browser tests: the built UI, Chromium, a page that fails the
// test on a page error, and a patient `expect.poll` for a busy shared machine.
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { createOfflineModel } from '../../src/llm/index.ts';
import { ensureWebBuild } from '../../src/server/ensure-web-build.ts';
import { type NotebookServer, startNotebookServer } from '../../src/server/index.ts';
import { openWorkspace } from '../../src/workspace/index.ts';

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

/**
 * A copy of the example workspace in a new temp folder (`prefix`), served on a free port with
 * the offline model streaming every `chunkDelayMs`, and the built UI. The caller removes `root`.
 */
export async function serveExampleCopy(
  prefix: string,
  chunkDelayMs: number,
): Promise<{ root: string; server: NotebookServer; webRoot: string }> {
  const webRoot = await requireWebBuild();
  const root = await mkdtemp(join(tmpdir(), prefix));
  await cp(EXAMPLE, root, { recursive: true });
  const server = await startNotebookServer({
    workspace: openWorkspace({ root }),
    model: { model: createOfflineModel({ chunkDelayMs }), spec: 'offline', offline: true },
    port: 0,
    webRoot,
  });
  return { root, server, webRoot };
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

/** One element whose own text holds Han characters, as Chromium drew it. */
export interface HanRun {
  /** The element's own text (its text nodes, not its children's), up to 40 characters. */
  text: string;
  /** Han characters in it. */
  han: number;
  /** Glyphs drawn with a Simplified Chinese font (Noto Sans CJK SC, its mono, PingFang SC, …). */
  scGlyphs: number;
  /** Every font Chromium drew the text with: `family glyphs`. */
  fonts: string[];
}

/** Font families that draw Han characters in their Simplified Chinese forms. */
const SIMPLIFIED_CHINESE_FONT = /CJK SC|Sans SC|Serif SC|PingFang SC|Hiragino Sans GB|YaHei/u;

/**
 * The fonts Chromium really drew the Han text inside `scope` with: each rendered element whose
 * own text holds Han characters, with the glyphs its platform fonts drew (DevTools'
 * `CSS.getPlatformFontsForNode`, what the Fonts pane shows). Hidden elements (another panel on
 * a narrow screen) are not drawn and not listed. A Han character drawn as a missing-glyph box,
 * or in a fallback font's Japanese forms, leaves `scGlyphs` below `han`.
 */
export async function hanRuns(page: Page, scope: string): Promise<HanRun[]> {
  // The notebook re-renders on its own (the live session list, the preview after a change):
  // an element marked here may be gone when DevTools asks for its fonts. Then the scan starts
  // again on the current page, a few times at most.
  for (let attempt = 1; ; attempt++) {
    try {
      return await hanRunsOnce(page, scope);
    } catch (error) {
      const gone = error instanceof Error && /Could not find node with given id/u.test(error.message);
      if (!gone || attempt === 5) throw error;
    }
  }
}

async function hanRunsOnce(page: Page, scope: string): Promise<HanRun[]> {
  const marked = await page.locator(scope).evaluate((root) => {
    let count = 0;
    for (const element of [root, ...root.querySelectorAll('*')]) {
      element.removeAttribute('data-han-run');
      const own = [...element.childNodes]
        .filter((node) => node.nodeType === Node.TEXT_NODE)
        .map((node) => node.textContent ?? '')
        .join('');
      if (/\p{Script=Han}/u.test(own) && element.checkVisibility({ visibilityProperty: true })) {
        element.setAttribute('data-han-run', String(count));
        count += 1;
      }
    }
    return count;
  });
  if (marked === 0) return [];
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('DOM.enable');
    await cdp.send('CSS.enable');
    const { root } = await cdp.send('DOM.getDocument', { depth: 0 });
    const { nodeIds } = await cdp.send('DOM.querySelectorAll', {
      nodeId: root.nodeId,
      selector: '[data-han-run]',
    });
    const runs: HanRun[] = [];
    for (const nodeId of nodeIds) {
      const { fonts } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId });
      const { node } = await cdp.send('DOM.describeNode', { nodeId, depth: 1 });
      const own = (node.children ?? [])
        .filter((child) => child.nodeType === 3)
        .map((child) => child.nodeValue)
        .join('');
      runs.push({
        text: own.trim().slice(0, 40),
        han: own.match(/\p{Script=Han}/gu)?.length ?? 0,
        scGlyphs: fonts
          .filter((font) => SIMPLIFIED_CHINESE_FONT.test(font.familyName))
          .reduce((sum, font) => sum + font.glyphCount, 0),
        fonts: fonts.map((font) => `${font.familyName} ${font.glyphCount}`),
      });
    }
    return runs;
  } finally {
    await cdp.detach();
    await page.locator('[data-han-run]').evaluateAll((elements) => {
      for (const element of elements) element.removeAttribute('data-han-run');
    });
  }
}

/** What {@link servedNotebookPage} sets up for a test file (read in its tests, set before them). */
export interface ServedNotebook {
  root: string;
  server: NotebookServer;
  browser: Browser;
  page: Page;
}

/**
 * A test file's notebook: before its tests, a copy of the example workspace served with the
 * offline model (`serveExampleCopy`, folder `prefix`), Chromium and a page on it; after them, the
 * browser and server closed and the copy removed.
 */
export function servedNotebookPage(prefix: string): ServedNotebook {
  const served = {} as ServedNotebook;
  beforeAll(async () => {
    const { root, server } = await serveExampleCopy(prefix, 0);
    served.root = root;
    served.server = server;
    served.browser = await launchChromium(inject('chromiumPath'));
    served.page = await openNotebookPage(served.browser, server.browserUrl);
  }, 120_000);
  afterAll(async () => {
    await served.browser?.close();
    await served.server?.close();
    if (served.root) await rm(served.root, { recursive: true, force: true });
  });
  return served;
}
