// The notebook as a user of a long session meets it: more than a hundred turns (English and
// Chinese), so the call log holds more files than a completion list shows, at 1280 × 800.
// Screenshots under test/e2e/artifacts/.
import { randomUUID } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { NotebookServer } from '../../src/server/index.ts';
import { launchChromium, openNotebookPage, poll, screenshot, serveExampleCopy } from './notebook-browser.ts';

const RAFT = 'raft-consensus';
/** More turns than the 100 options a completion list shows: each turn logs one call file. */
const TURNS = 110;

let root: string;
let webRoot: string;
let server: NotebookServer;
let browser: Browser;
let page: Page;

/** One chat turn through the HTTP API the UI uses; resolves when its stream has ended. */
async function chat(text: string): Promise<void> {
  const response = await fetch(`${server.url}/api/sessions/${RAFT}/chat`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      id: RAFT,
      trigger: 'submit-message',
      messages: [{ id: randomUUID(), role: 'user', parts: [{ type: 'text', text }] }],
    }),
  });
  const body = await response.text();
  expect(response.status).toBe(200);
  expect(body).not.toContain('"type":"error"');
}

beforeAll(async () => {
  ({ root, server, webRoot } = await serveExampleCopy('ctxloom-e2e-long-', 0));
  for (let turn = 0; turn < TURNS; turn++) {
    await chat(
      turn % 2 === 0
        ? `Turn ${turn}: how does a follower decide to start an election after a quiet period?`
        : `第 ${turn} 轮：日志复制时，leader 如何确认某条目已经提交？[guidance.md:1:3]`,
    );
  }
  browser = await launchChromium(inject('chromiumPath'));
  page = await openNotebookPage(browser, server.browserUrl, { width: 1280, height: 800 });
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

const shot = (name: string) => screenshot(page, `long-${name}`);

describe('a long session in the notebook', () => {
  it('"[" completes the session’s own files first, not only the call log’s', async () => {
    await page.goto(`${server.url}/?lang=en&session=${RAFT}`);
    await poll(() => page.locator('.message.assistant button[data-call]').count(), { timeout: 30_000 }).toBe(
      TURNS,
    );
    const input = page.getByTestId('chat-input');
    await input.click();
    await page.keyboard.type('see [');
    const options = page.locator('.cm-tooltip-autocomplete li .cm-completionLabel');
    await poll(() => options.count()).toBeGreaterThan(0);
    const shown = await options.allTextContents();
    await shot('1280-complete-files');
    expect(shown).toContain('guidance.md');
    expect(shown).toContain('ground-truth.md');
    // The session's own files lead; the call log's files follow them.
    const firstCall = shown.findIndex((label) => label.startsWith('calls/'));
    expect(shown.slice(0, firstCall === -1 ? undefined : firstCall)).toContain('guidance.md');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+a');
    await page.keyboard.press('Backspace');
  }, 120_000);

  it('a file name the tree cuts off at 1280 px can still be read in full', async () => {
    await page.goto(`${server.url}/?lang=en&session=${RAFT}`);
    await poll(() => page.locator('.file-tree .file-name').count(), { timeout: 30_000 }).toBeGreaterThan(5);
    const names = await page.locator('.file-tree > li .file-name').evaluateAll((elements) =>
      elements.map((element) => ({
        text: element.textContent ?? '',
        cut: element.scrollWidth > element.clientWidth,
        title: element.closest('[title]')?.getAttribute('title') ?? '',
      })),
    );
    await shot('1280-files');
    // ground-truth.md, session-prompt.md, … do not fit the 250 px column.
    expect(names.filter((name) => name.cut).length).toBeGreaterThan(0);
    for (const name of names.filter((entry) => entry.cut)) expect(name.title).toContain(name.text);
  }, 120_000);

  it('typing a message does not render the whole history again at every key', async () => {
    // Each message formats its time (Date#toLocaleString) when it renders: counting the calls
    // counts the messages rendered, with no clock involved.
    await page.addInitScript(() => {
      const format = Date.prototype.toLocaleString;
      const counted = window as unknown as { dateFormats: number };
      counted.dateFormats = 0;
      Date.prototype.toLocaleString = function (...args: Parameters<Date['toLocaleString']>) {
        counted.dateFormats += 1;
        return format.apply(this, args);
      };
    });
    await page.goto(`${server.url}/?lang=en&session=${RAFT}`);
    const messages = page.locator('.message');
    await poll(() => page.locator('.message.assistant button[data-call]').count(), { timeout: 30_000 }).toBe(
      TURNS,
    );
    const shown = await messages.count();
    expect(shown).toBeGreaterThanOrEqual(2 * TURNS);
    const dateFormats = () => page.evaluate(() => (window as unknown as { dateFormats: number }).dateFormats);
    await page.getByTestId('chat-input').click();
    const before = await dateFormats();
    await page.keyboard.type('What did we say about elections?');
    // The preview follows the draft; wait until it has, so every render of the typing is counted.
    await poll(() => page.locator('.preview .hint').first().textContent()).toContain('draft');
    const rendered = (await dateFormats()) - before;
    // 32 keys over a history of 220+ messages rendered each message 32 times (7,000+ formats).
    expect(rendered).toBeLessThan(shown);
    await page.keyboard.press('Control+a');
    await page.keyboard.press('Backspace');
  }, 120_000);

  it('formats a message’s Markdown when it comes near the visible part of the list, and keeps it formatted', async () => {
    await page.goto(`${server.url}/?lang=en&session=${RAFT}`);
    await poll(() => page.locator('.message.assistant button[data-call]').count(), { timeout: 30_000 }).toBe(
      TURNS,
    );
    const list = page.locator('.messages');
    const last = page.locator('.message.assistant').last();
    // The list opens at its end, on formatted answers (headings, not "###").
    await poll(() => last.locator('.markdown:not(.plain) h3').count()).toBeGreaterThan(0);
    const distanceFromEnd = () =>
      list.evaluate((element) => element.scrollHeight - element.scrollTop - element.clientHeight);
    await poll(distanceFromEnd).toBeLessThan(2);
    await shot('1280-end');

    // Far above, the first answer shows its text as written, unformatted but in the document
    // (find in page reaches it); most of the history is like it.
    const messages = await page.locator('.message').count();
    const formatted = await page.locator('.message .markdown:not(.plain)').count();
    expect(formatted).toBeGreaterThan(0);
    expect(formatted).toBeLessThan(messages / 2);
    const firstAnswer = page.locator('[data-message-id="m002"]');
    expect(await firstAnswer.locator('.markdown.plain').textContent()).toContain('按**同一顺序**应用');
    expect(await firstAnswer.locator('strong').count()).toBe(0);

    // Scrolled into view, it is formatted; back at the end, it stays formatted.
    await firstAnswer.scrollIntoViewIfNeeded();
    await poll(() => firstAnswer.locator('.markdown:not(.plain) strong').first().textContent()).toBe(
      '同一顺序',
    );
    await shot('1280-start');
    await list.evaluate((element) => element.scrollTo({ top: element.scrollHeight }));
    await poll(distanceFromEnd).toBeLessThan(2);
    expect(await firstAnswer.locator('.markdown.plain').count()).toBe(0);
    expect(await firstAnswer.locator('strong').first().textContent()).toBe('同一顺序');
  }, 120_000);

  it('shows a session’s stored answers formatted when they first appear, on a slow Markdown chunk too', async () => {
    // A page of its own whose Markdown renderer chunk arrives 1.5 s late (routing turns the
    // HTTP cache off, so every load of it waits).
    const slow = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await slow.route('**/markdown-renderer-*.js', async (route) => {
        await new Promise((resolve) => setTimeout(resolve, 1500));
        await route.continue();
      });
      await slow.goto(server.browserUrl);
      await slow.goto(`${server.url}/?lang=en&session=${RAFT}`);
      const last = slow.locator('.message.assistant').last();
      await poll(() => slow.locator('.message.assistant').count(), { timeout: 30_000 }).toBeGreaterThan(0);
      // The first moment the answers are on the page, the one in view is formatted, not "###".
      expect(await last.locator('.markdown.plain').count()).toBe(0);
      expect(await last.locator('.markdown h3').count()).toBeGreaterThan(0);
    } finally {
      await slow.close();
    }
  }, 120_000);

  it('keeps the list at its end when a banner above it arrives after the messages', async () => {
    // The session list (which names the model, hence the offline banner) answers 1.5 s late: the
    // messages are on the page, scrolled to their end, before the banner takes its height.
    const late = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await late.route(
        (url) => url.pathname === '/api/sessions',
        async (route) => {
          await new Promise((resolve) => setTimeout(resolve, 1500));
          await route.continue();
        },
      );
      await late.goto(server.browserUrl);
      await late.goto(`${server.url}/?lang=en&session=${RAFT}`);
      await poll(() => late.locator('.message.assistant').count(), { timeout: 30_000 }).toBeGreaterThan(0);
      await poll(() => late.locator('.offline-banner').count(), { timeout: 30_000 }).toBe(1);
      const list = late.locator('.messages');
      await poll(() =>
        list.evaluate((element) => element.scrollHeight - element.scrollTop - element.clientHeight),
      ).toBeLessThan(2);
    } finally {
      await late.close();
    }
  }, 120_000);

  it('follows its newest answer when it grows after the list reached its end, and not once scrolled up', async () => {
    await page.goto(`${server.url}/?lang=en&session=${RAFT}`);
    await poll(() => page.locator('.message.assistant button[data-call]').count(), { timeout: 30_000 }).toBe(
      TURNS,
    );
    const list = page.locator('.messages');
    const distanceFromEnd = () =>
      list.evaluate((element) => element.scrollHeight - element.scrollTop - element.clientHeight);
    await poll(distanceFromEnd).toBeLessThan(2);
    // What arrives late in the newest answer (a font, a row of chips): it grows by 120 px.
    const grow = () =>
      page
        .locator('.message.assistant')
        .last()
        .evaluate((element) => {
          const block = document.createElement('div');
          block.style.height = '120px';
          element.append(block);
        });
    await grow();
    await poll(distanceFromEnd).toBeLessThan(2);
    // Scrolled up by the reader, it stays where the reader put it.
    await list.evaluate((element) => element.scrollBy({ top: -400 }));
    await poll(distanceFromEnd).toBeGreaterThan(390);
    await grow();
    // Resize observations are delivered before the next frame is painted: two frames later, done.
    await page.evaluate(
      () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
    );
    expect(await distanceFromEnd()).toBeGreaterThan(500);
  }, 120_000);

  it('opening and closing a call’s report renders the message that holds it, not the whole history', async () => {
    await page.goto(`${server.url}/?lang=en&session=${RAFT}`);
    const chips = page.locator('.message.assistant button[data-call]');
    await poll(() => chips.count(), { timeout: 30_000 }).toBe(TURNS);
    const chip = chips.last();
    const callId = await chip.getAttribute('data-call');
    // As above, a message's time is formatted each time it renders. The history before the last
    // turn is every message up to the answer before it; the report's own call and the last turn
    // come later.
    const times = await page
      .locator('.message time')
      .evaluateAll((elements) =>
        elements.map((element) => Date.parse(element.getAttribute('datetime') ?? '')),
      );
    const olderUntil = times.at(-3) ?? 0;
    await page.evaluate((until) => {
      const format = Date.prototype.toLocaleString;
      const counted = window as unknown as { olderRenders: number };
      counted.olderRenders = 0;
      Date.prototype.toLocaleString = function (...args: Parameters<Date['toLocaleString']>) {
        if (this.getTime() <= until) counted.olderRenders += 1;
        return format.apply(this, args);
      };
    }, olderUntil);
    const report = page.getByTestId('call-report');
    await chip.click();
    await poll(() => report.getAttribute('data-call-id')).toBe(callId);
    await poll(() => chip.getAttribute('aria-pressed')).toBe('true');
    await report.getByRole('button', { name: 'Back to the preview' }).click();
    await poll(() => report.count()).toBe(0);
    await poll(() => chip.getAttribute('aria-pressed')).toBe('false');
    const rendered = await page.evaluate(() => (window as unknown as { olderRenders: number }).olderRenders);
    // Every message was given the open call's id, so the open and the close each rendered the
    // whole history (536 renders of its 268 older messages); now only the last answer's props
    // change.
    expect(rendered).toBe(0);
  }, 120_000);

  it('after a turn, renders the new messages again, not the whole history', async () => {
    await page.goto(`${server.url}/?lang=en&session=${RAFT}`);
    const stored = page.locator('.message.assistant button[data-curate]');
    await poll(() => page.locator('.message.assistant button[data-call]').count(), { timeout: 30_000 }).toBe(
      TURNS,
    );
    const answers = await stored.count();
    // As above, a message's time is formatted each time it renders; a message stored before
    // the turn shows a time before it, so this counts the renders of the history alone.
    await page.evaluate(() => {
      const format = Date.prototype.toLocaleString;
      const counted = window as unknown as { historyRenders: number; turnAt: number };
      counted.historyRenders = 0;
      counted.turnAt = Date.now();
      Date.prototype.toLocaleString = function (...args: Parameters<Date['toLocaleString']>) {
        if (this.getTime() < counted.turnAt) counted.historyRenders += 1;
        return format.apply(this, args);
      };
    });
    await page.getByTestId('chat-input').click();
    await page.keyboard.type('One more question about elections?');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Enter');
    // The answer shows its curation button once the history reloaded after it was stored.
    await poll(() => stored.count(), { timeout: 60_000 }).toBe(answers + 1);
    // The file-change event reloads the history once more, soon after.
    await page.waitForTimeout(1500);
    const rendered = await page.evaluate(
      () => (window as unknown as { historyRenders: number }).historyRenders,
    );
    // Every message rendered at each change of the list — the question, the streamed answer,
    // the reloads (810 renders before the views were memoised); now only those whose props
    // moved do: the tab stop passes to the new answer, the messages formatted at once shift
    // by two (3 renders).
    expect(rendered).toBeLessThan(10);
  }, 120_000);

  it('the notebook is React’s production build, even when built under the test runner', async () => {
    // requireWebBuild builds the UI in this process (NODE_ENV=test) when web/ changed: Vite
    // then bundled React's development build, which `npm start` went on serving — several
    // times slower on a long history (a 4 s freeze switching language at 2,100 messages).
    const html = await readFile(join(webRoot, 'index.html'), 'utf8');
    const script = /src="\.\/(assets\/index-[^"]+\.js)"/u.exec(html)?.[1];
    expect(script).toBeDefined();
    const bundle = await readFile(join(webRoot, script ?? ''), 'utf8');
    expect(bundle.includes('Download the React DevTools'), 'React development build').toBe(false);
    expect(bundle.includes('jsxDEV'), 'JSX compiled for development').toBe(false);
  });

  it('shows the history behind the cut as one run in the call’s report, naming the recalled and summarised messages in it', async () => {
    // A narrow window: most of the 220+ messages are behind the cut, listed 20 one by one and
    // the rest as runs; a question about an earlier turn recalls some of them.
    const path = join(root, RAFT, 'context-config.json');
    const config = JSON.parse(await readFile(path, 'utf8'));
    await writeFile(path, JSON.stringify({ ...config, budget: { ...config.budget, window: 4000 } }));
    await chat('What did we say about elections in the first turns?');
    await page.goto(`${server.url}/?lang=en&session=${RAFT}`);
    const chips = page.locator('.message.assistant button[data-call]');
    // This turn's answer is the last (the one before may or may not have run).
    await poll(() => chips.count(), { timeout: 30_000 }).toBeGreaterThan(TURNS);
    await chips.last().click();
    await page.getByTestId('call-report').locator('tr[data-layer="history"] button').click();
    const others = page.locator('.run-others');
    await poll(() => others.count()).toBeGreaterThan(0);
    const texts = await others.allTextContents();
    expect(texts).toContainEqual(
      expect.stringMatching(/^\d+ of them: recalled into recall__context for this question$/u),
    );
    for (const text of texts)
      expect(text).toMatch(
        /^\d+ of them: (recalled into recall__context for this question|summarised into compression__context|behind the cut: the model can find it with search_history)$/u,
      );
    // One run of the history behind the cut, however its messages are covered.
    expect(await page.locator('li', { has: others }).count()).toBe(1);
    // Its own reason counts only its messages of that reason (the run's count is all of them).
    expect(await page.locator('li', { has: others }).textContent()).toMatch(
      /^dropped\d+ messages .* — \d+ of them: behind the cut: the model can find it with search_history\d+ of them: /u,
    );
    await others.first().scrollIntoViewIfNeeded();
    await shot('1280-run-others');
  }, 120_000);
});
