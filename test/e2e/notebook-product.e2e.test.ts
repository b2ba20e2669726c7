// The notebook as people meet it (issue 29): every token of a call in a row, a preview that
// stays up with a bad reference, ctxloom's own files protected, a keyboard path to the chat
// input, dialogs instead of prompt(), and a session list that is live across tabs — at four
// widths in English and Chinese, with screenshots under test/e2e/artifacts/.
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { NotebookServer } from '../../src/server/index.ts';
import {
  ARTIFACTS,
  ask,
  bodyText,
  type HanRun,
  hanRuns,
  launchChromium,
  openNotebookPage,
  poll,
  previewTokens,
  screenshot,
  serveExampleCopy,
} from './notebook-browser.ts';

const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 768, height: 1024 },
  { width: 1024, height: 768 },
  { width: 1440, height: 900 },
];
const RAFT = 'raft-consensus';
/** Tab presses from the page's top to the chat input, per wide layout (written to the artefacts). */
const TAB_STOPS: { lang: string; width: number; stops: number }[] = [];
/** The fonts the Chinese page's Han text was drawn with, per width and panel (written to the artefacts). */
const HAN_FONTS: { width: number; panel: string; runs: number; han: number; fonts: string[] }[] = [];

let root: string;
let server: NotebookServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  ({ root, server } = await serveExampleCopy('ctxloom-e2e-product-', 0));
  browser = await launchChromium(inject('chromiumPath'));
  page = await openNotebookPage(browser, server.browserUrl);
}, 120_000);

afterAll(async () => {
  await writeFile(join(ARTIFACTS, 'product-tab-stops.json'), `${JSON.stringify(TAB_STOPS, null, 2)}\n`);
  await writeFile(join(ARTIFACTS, 'product-zh-fonts.json'), `${JSON.stringify(HAN_FONTS, null, 2)}\n`);
  await browser?.close();
  await server?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

const shot = (name: string) => screenshot(page, `product-${name}`);
const narrow = () => (page.viewportSize()?.width ?? 1440) < 900;
/** On a narrow screen the three columns are tabs: show the one asked for. */
const showPanel = async (panel: 0 | 1 | 2) => {
  if (narrow()) await page.locator('.panel-tabs [role="tab"]').nth(panel).click();
};
const openRaft = async (lang: 'en' | 'zh') => {
  await page.goto(`${server.url}/?lang=${lang}&session=${RAFT}`);
  await poll(() => previewTokens(page), { timeout: 20_000 }).toBeGreaterThan(0);
  await poll(() => page.locator('.live-dot.on').count()).toBe(1);
};
/** Tokens in a cell of the preview's table, `1,234` → 1234. */
const cellTokens = async (row: ReturnType<Page['locator']>) =>
  Number(((await row.locator('td.num').first().textContent()) ?? '').replace(/,/gu, ''));

async function guarded(name: string, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    await shot(`failure-${name}`);
    throw error;
  }
}

describe('the notebook as a product, at every width in English and Chinese', () => {
  it('answers one turn and compresses, so the session has a call log and compression.json', async () => {
    await page.goto(`${server.url}/?lang=en&session=${RAFT}`);
    await poll(() => previewTokens(page), { timeout: 20_000 }).toBeGreaterThan(0);
    await ask(page, 'What is a term?', 1);
    const compressed = await fetch(`${server.url}/api/sessions/${RAFT}/compress`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(compressed.status).toBe(200);
  }, 120_000);

  it('the offline model answers 「提交规则是什么？」 by quoting the 提交规则 section, once, labelled with its file and heading', async () => {
    await guarded('offline-answer', async () => {
      await page.setViewportSize({ width: 1440, height: 900 });
      await openRaft('zh');
      const before = await page.locator('.message.assistant').count();
      await ask(page, '提交规则是什么？', before + 1);
      const answer = await bodyText(page.locator('.message.assistant').nth(before));
      expect(answer).toContain('leader 只在某条目是当前任期的条目且已存储在多数服务器上时');
      expect(answer.split('leader 只在某条目是当前任期的条目').length - 1).toBe(1);
      expect(answer).toContain('ground-truth.md › Raft 知识要点（ground truth） › 提交规则');
      await shot('offline-answer-zh-1440');
    });
  }, 120_000);

  for (const lang of ['en', 'zh'] as const) {
    for (const viewport of VIEWPORTS) {
      it(`${lang} ${viewport.width} px: tools row, bad-reference preview, protected files, keyboard path`, async () => {
        await guarded(`${lang}-${viewport.width}`, async () => {
          await page.setViewportSize(viewport);
          await openRaft(lang);
          if (lang === 'zh') await chineseGlyphs(viewport.width);
          await toolsRow(lang, viewport.width);
          await badReferencePreview(lang, viewport.width);
          await protectedFiles(lang, viewport.width);
          await keyboardPath(lang);
          expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
            viewport.width,
          );
        });
      }, 120_000);
    }
  }

  it('tells Han text drawn in a Simplified Chinese font from text drawn in Japanese forms', async () => {
    // The glyph check above is not vacuous: the same characters in Noto Sans CJK JP (what
    // fontconfig falls back to for Han text in an English page here) count no SC glyphs.
    const probe = await browser.newPage();
    try {
      await probe.setContent(
        `<p style="font-family: 'Noto Sans CJK SC'">提交规则，提交</p><p style="font-family: 'Noto Sans CJK JP'">提交规则</p>`,
      );
      const runs = await hanRuns(probe, 'body');
      expect(runs.map(({ text, han, scGlyphs }) => ({ text, han, scGlyphs }))).toEqual([
        { text: '提交规则，提交', han: 6, scGlyphs: 7 },
        { text: '提交规则', han: 4, scGlyphs: 0 },
      ]);
    } finally {
      await probe.close();
    }
  });

  it('keeps the session list live across tabs; dialogs create, rename and delete a session', async () => {
    await guarded('sessions', liveSessions);
  }, 120_000);
});

/**
 * Every Han character on the Chinese page is drawn in a Simplified Chinese font — no
 * missing-glyph boxes, no Japanese forms from a fallback font — in each panel (on a narrow
 * screen, each tab), the offline answer in the chat included.
 */
async function chineseGlyphs(width: number): Promise<void> {
  const panels = [
    ['sidebar', 'nav.sidebar'],
    ['main', 'section.center'],
    ['context', 'aside.inspector'],
  ] as const;
  for (const [index, [panel, scope]] of panels.entries()) {
    await showPanel(index as 0 | 1 | 2);
    if (panel === 'main') {
      const answer = page.locator('.message.assistant').last();
      await answer.scrollIntoViewIfNeeded();
    }
    const runs: HanRun[] = await hanRuns(page, scope);
    expect(runs.length, `${panel}: elements with Han text`).toBeGreaterThan(5);
    expect(
      runs.filter((run) => run.scGlyphs < run.han),
      `${panel}: Han text not drawn in a Simplified Chinese font`,
    ).toEqual([]);
    HAN_FONTS.push({
      width,
      panel,
      runs: runs.length,
      han: runs.reduce((sum, run) => sum + run.han, 0),
      fonts: [...new Set(runs.flatMap((run) => run.fonts.map((font) => font.replace(/ \d+$/u, ''))))].sort(),
    });
    if (narrow()) await shot(`zh-${width}-glyphs-${panel}`);
  }
  if (!narrow()) await shot(`zh-${width}-glyphs`);
  await showPanel(1);
}

/** Every token of the call in a row: layers, tools (each on expand), overhead; the rows sum to the total. */
async function toolsRow(lang: 'en' | 'zh', width: number): Promise<void> {
  await showPanel(2);
  const preview = page.locator('.preview');
  const tools = preview.locator('tr[data-row="tools"]');
  await tools.waitFor();
  expect(await tools.locator('th').textContent()).toBe(lang === 'en' ? 'tools (8)' : '工具（8）');
  const rows = preview.locator('table.layers tbody tr.layer-row');
  let sum = 0;
  for (let index = 0; index < (await rows.count()); index++) sum += await cellTokens(rows.nth(index));
  const total = await previewTokens(page);
  expect(sum).toBe(total);
  expect(await cellTokens(preview.locator('tr[data-row="total"]'))).toBe(total);
  // Per tool on expand, adding up to the row.
  await tools.locator('button').click();
  const list = preview.getByTestId('tool-list');
  await list.waitFor();
  const perTool = await list.locator('li').allTextContents();
  expect(perTool.map((text) => text.split(' ')[0])).toContain('read_file');
  expect(perTool.reduce((value, text) => value + Number(text.split(' ')[1]?.replace(/,/gu, '')), 0)).toBe(
    await cellTokens(tools),
  );
  // No layer name is clipped: each fits its cell.
  const clipped = await preview
    .locator('.layer-toggle')
    .evaluateAll((buttons) =>
      buttons
        .filter((button) => button.scrollWidth > button.clientWidth + 1)
        .map((button) => button.textContent),
    );
  expect(clipped).toEqual([]);
  await preview.locator('table.layers').scrollIntoViewIfNeeded();
  await shot(`${lang}-${width}-tools`);
  await tools.locator('button').click();
  // The long session's layers: recalled messages and those behind the cut, with their reasons.
  if (width === 1440) {
    const history = preview.locator('tr[data-layer="history"] button');
    await history.click();
    const detail = preview.locator('#preview-layer-history');
    expect(await detail.textContent()).toContain(lang === 'en' ? 'behind the cut' : 'search_history');
    await detail.scrollIntoViewIfNeeded();
    await shot(`${lang}-${width}-history-reasons`);
    await history.click();
  }
}

/** A draft with a bad reference: the preview stays up, leaves it out and names it in the page's language. */
async function badReferencePreview(lang: 'en' | 'zh', width: number): Promise<void> {
  await showPanel(1);
  const input = page.getByTestId('chat-input');
  await input.click();
  await page.keyboard.type('Compare [nope.md:1:3] with the notes');
  await page.keyboard.press('Escape');
  await showPanel(2);
  const bad = page.getByTestId('preview-bad-references');
  await poll(() => bad.isVisible()).toBe(true);
  expect(await page.getByTestId('preview-total').isVisible()).toBe(true);
  expect(await bad.locator('code.bad-reference').textContent()).toBe('[nope.md:1:3]');
  expect(await bad.textContent()).toContain(
    lang === 'en' ? 'nope.md does not exist in this session' : '本会话中没有 nope.md',
  );
  expect(await page.locator('.preview').textContent()).not.toContain('invalid-reference');
  await bad.scrollIntoViewIfNeeded();
  await shot(`${lang}-${width}-bad-reference`);
  await showPanel(1);
  await input.click();
  await page.keyboard.press('Control+a');
  await page.keyboard.press('Delete');
  await showPanel(2);
  await poll(() => bad.count()).toBe(0);
}

/** ctxloom's files: no rename/delete, read-only, the call log folded; a refused rename says why in the page's language. */
async function protectedFiles(lang: 'en' | 'zh', width: number): Promise<void> {
  await showPanel(0);
  const tree = page.locator('.files');
  const row = (name: string) =>
    tree.locator('.file-row').filter({
      has: page.locator('.file-name', { hasText: new RegExp(`^${name.replace('.', '\\.')}$`, 'u') }),
    });
  await poll(() => row('compression.json').count()).toBe(1);
  for (const name of ['compression.json', 'memory.json', 'messages.json', 'context-config.json'])
    expect({ name, buttons: await row(name).locator('.row-actions button').count() }).toEqual({
      name,
      buttons: 0,
    });
  expect(await row('guidance.md').locator('.row-actions button').count()).toBe(2);
  expect(await row('compression.json').locator('.readonly').getAttribute('aria-label')).toBe(
    lang === 'en' ? 'read-only' : '只读',
  );
  // The call log is one closed group: its files are no Tab stops until it is opened.
  const callLog = tree.getByTestId('call-log');
  expect(await callLog.evaluate((element) => (element as HTMLDetailsElement).open)).toBe(false);
  expect(await callLog.locator('summary').textContent()).toMatch(
    lang === 'en' ? /^calls\/ · call log, \d+ files/u : /^calls\/ · 调用日志/u,
  );
  expect(await callLog.locator('.file').first().isVisible()).toBe(false);

  // Opened, compression.json is read-only: no save button, a note, typing changes nothing.
  await row('compression.json').locator('.file').click();
  const note = page.getByTestId('read-only-note');
  await poll(() => note.isVisible()).toBe(true);
  expect(await note.textContent()).toContain(lang === 'en' ? 'kept by ctxloom' : '由 ctxloom 维护');
  expect(await page.locator('.editor-bar button.primary').count()).toBe(0);
  // The file as stored, before and after typing (the editor renders only the lines in view,
  // so a click that scrolls a long file changes its text without changing the file).
  const stored = async () =>
    (
      await fetch(`${server.url}/api/sessions/${RAFT}/files/compression.json`, {
        headers: { Authorization: `Bearer ${server.token}` },
      })
    ).text();
  const before = await stored();
  await page.locator('.cm-host .cm-content').click();
  await page.keyboard.type('x');
  expect(await page.locator('.cm-host .cm-content').textContent()).not.toContain('x{');
  expect(await page.locator('.editor-bar button.primary').count()).toBe(0);
  expect(await stored()).toBe(before);
  await shot(`${lang}-${width}-read-only`);

  // Renaming a file onto memory.json: the dialog asks, the server refuses, the page says why.
  await showPanel(0);
  await row('milestones.md').locator('.row-actions button').first().click();
  const dialog = page.locator('dialog.dialog');
  await poll(() => dialog.isVisible()).toBe(true);
  await dialog.locator('input').fill('memory.json');
  await shot(`${lang}-${width}-rename-dialog`);
  await dialog.locator('input').press('Enter');
  const banner = page.locator('.error-banner');
  await poll(() => banner.isVisible()).toBe(true);
  const text = (await banner.textContent()) ?? '';
  expect(text).toContain(
    lang === 'en' ? 'memory.json is kept by ctxloom and cannot be changed' : 'memory.json 由 ctxloom 维护',
  );
  expect(text.match(/Error|错误/gu)?.length ?? 0).toBeLessThanOrEqual(1);
  await shot(`${lang}-${width}-refused`);
  await banner.locator('button').click();
  expect(await row('milestones.md').count()).toBe(1);
}

/** From the page's top: Tab reaches the skip link first, Enter lands in the chat input; `/` does too. */
async function keyboardPath(lang: 'en' | 'zh'): Promise<void> {
  await openRaft(lang);
  await page.keyboard.press('Tab');
  const focused = () => page.evaluate(() => document.activeElement?.textContent ?? '');
  expect(await focused()).toBe(lang === 'en' ? 'Skip to the message input' : '跳到消息输入框');
  await page.keyboard.press('Enter');
  const inInput = () =>
    page.evaluate(() => document.activeElement?.getAttribute('data-testid') === 'chat-input');
  await poll(inInput).toBe(true);
  // Without the skip link, Tab still reaches the input past one stop for the whole call log.
  if (!narrow()) {
    await openRaft(lang);
    const where = () =>
      page.evaluate(() => ({
        input: document.activeElement?.getAttribute('data-testid') === 'chat-input',
        callFile: document.activeElement?.closest('.call-log-files') != null,
      }));
    let stops = 0;
    for (; stops < 100; stops++) {
      await page.keyboard.press('Tab');
      const at = await where();
      expect(at.callFile).toBe(false);
      if (at.input) break;
    }
    TAB_STOPS.push({ lang, width: page.viewportSize()?.width ?? 0, stops: stops + 1 });
    expect(stops + 1).toBeLessThan(40);
  }
  // `/` from anywhere outside a text field.
  await page.locator('.topbar .brand').click();
  await page.keyboard.press('/');
  await poll(inInput).toBe(true);
  expect(await page.locator('[data-testid="chat-input"] .cm-line').first().textContent()).not.toMatch(/^\//u);
}

/** Two tabs: a session created, renamed and deleted in one shows in the other at once. */
async function liveSessions(): Promise<void> {
  await page.setViewportSize({ width: 1440, height: 900 });
  await openRaft('en');
  const other = await openNotebookPage(browser, server.browserUrl);
  try {
    await other.goto(`${server.url}/?lang=zh&session=${RAFT}`);
    await poll(() => other.locator('.live-dot.on').count(), { timeout: 20_000 }).toBe(1);
    const names = (target: Page) => target.locator('.session-list .session-name').allTextContents();

    // New session by keyboard: the dialog is modal, keeps Tab inside, Escape closes it.
    const create = page.getByRole('button', { name: '+ New session' });
    await create.focus();
    await page.keyboard.press('Enter');
    const dialog = page.locator('dialog.dialog');
    await poll(() => dialog.isVisible()).toBe(true);
    const inDialog = () => page.evaluate(() => document.activeElement?.closest('dialog') !== null);
    expect(await inDialog()).toBe(true);
    for (let step = 0; step < 5; step++) {
      await page.keyboard.press('Tab');
      expect(await inDialog()).toBe(true);
    }
    await page.keyboard.press('Escape');
    await poll(() => dialog.count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('+ New session');

    await page.keyboard.press('Enter');
    await poll(() => dialog.isVisible()).toBe(true);
    await page.keyboard.type('Paxos 入门');
    await shot('en-1440-new-session-dialog');
    await page.keyboard.press('Enter');
    await poll(() => page.locator('.session-list li.active').textContent()).toContain('Paxos 入门');
    await poll(() => names(other), { timeout: 15_000 }).toContain('Paxos 入门');
    // The new session starts clean: no ticks of the previous one's profile blocks, no error.
    await poll(() => page.locator('.picker input[type="checkbox"]').count()).toBeGreaterThan(0);
    expect(await page.locator('.picker input[type="checkbox"]:checked').count()).toBe(0);
    expect(await page.locator('.error-banner').count()).toBe(0);
    expect(await page.locator('.preview[role="alert"]').count()).toBe(0);
    await shot('en-1440-new-session');
    await screenshot(other, 'product-zh-1440-live-list');

    // Rename and delete through dialogs; the other tab follows.
    await page.getByRole('button', { name: 'Rename Paxos 入门' }).click();
    await poll(() => dialog.isVisible()).toBe(true);
    await dialog.locator('input').fill('Paxos made simple');
    await dialog.locator('button[type="submit"]').click();
    await poll(() => names(other), { timeout: 15_000 }).toContain('Paxos made simple');
    await page.getByRole('button', { name: 'Delete Paxos made simple' }).click();
    await poll(() => dialog.isVisible()).toBe(true);
    await shot('en-1440-delete-dialog');
    await dialog.locator('button.danger').click();
    await poll(() => names(other), { timeout: 15_000 }).not.toContain('Paxos made simple');
    expect(await names(page)).not.toContain('Paxos made simple');
  } finally {
    await other.close();
  }
}
