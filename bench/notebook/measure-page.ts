import type { Browser, CDPSession, Page } from 'playwright-core';
import type { NotebookServer } from '../../src/server/index.ts';
import { SESSION } from './long-session.ts';

/** Screens of history scrolled up after the turn. */
const SCROLL_SCREENS = 20;

/** What one visit to the long session cost the page's main thread (ms unless said). */
export interface PageSample {
  /** Navigation start → every answer's report chip present and the page idle (see `waitIdle`). */
  openMs: number;
  /** Long tasks (> 50 ms) until then, summed. */
  openLongTaskMs: number;
  /** The main thread's task time until then (Chromium's `Performance.getMetrics`), and of it
   * script and layout. */
  openTaskMs: number;
  openScriptMs: number;
  openLayoutMs: number;
  /** Elements in the document once open. */
  elements: number;
  /** The first history reload after one more turn: its response's end → the page idle again. */
  reloadMs: number;
  /** Pressing Enter → the page idle after the answer is stored: long tasks, task time. */
  turnLongTaskMs: number;
  turnTaskMs: number;
  /** The last answer's call report opened from its chip: the click → the report shown and the
   * page idle, and the main thread's task time; then closed (its back button), the same. */
  reportOpenMs: number;
  reportOpenTaskMs: number;
  reportCloseMs: number;
  reportCloseTaskMs: number;
  /** Scrolling the history up twenty screens → idle: long tasks, the longest, task time. */
  scrollLongTaskMs: number;
  scrollLongestTaskMs: number;
  scrollTaskMs: number;
}

/** The page's side of the measurement, installed before the notebook's own scripts. */
interface PageProbe {
  longTasks: { start: number; end: number }[];
  /** When the document's content last changed (nodes added, removed or their text changed). */
  lastMutation: number;
  /** Response ends of the session's history requests (`GET /api/sessions/<id>`). */
  historyLoads: number[];
  /** When every expected report chip was in the document. */
  presentAt?: number;
  /** When the last answer showed its curation button (it is stored). */
  storedAt?: number;
}

/**
 * Opens the long session in a fresh browser context and measures: the open (navigation →
 * every message present → idle for `quietMs`), one more turn typed and sent as a user
 * does (the answer's stream, then the history reload the chat makes when it ends), its call's
 * report opened from the answer's chip and closed, and a scroll up through the history.
 * `chips` is the number of report chips the session shows; `quietMs` how long the page must
 * stay still to count as idle (default 2,000 ms).
 */
export async function measurePage(options: {
  browser: Browser;
  server: NotebookServer;
  chips: number;
  question: string;
  quietMs?: number;
}): Promise<PageSample> {
  const { server, chips } = options;
  const quietMs = options.quietMs ?? 2000;
  const context = await options.browser.newContext({ viewport: { width: 1440, height: 900 } });
  try {
    const page = await context.newPage();
    page.on('pageerror', (error) => {
      throw error;
    });
    await page.addInitScript(installProbe, { chips, historyPath: `/api/sessions/${SESSION}` });
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    // `?token=` sets the API cookie and redirects to the same page without it: one navigation.
    await page.goto(`${server.url}/?lang=en&session=${SESSION}&token=${encodeURIComponent(server.token)}`);
    const present = await waitFor(page, (probe) => probe.presentAt);
    const openEnd = await waitIdle(page, cdp, present, quietMs);
    const opened = await mainThread(cdp);
    const elements = await page.evaluate(() => document.getElementsByTagName('*').length);
    const openLongTaskMs = await longTaskMs(page, 0, openEnd);

    const input = page.getByTestId('chat-input');
    await input.click();
    await page.keyboard.type(options.question);
    await page.keyboard.press('Escape'); // closes a completion list, if one opened
    await waitIdle(page, cdp, await pageNow(page), quietMs);
    const beforeTurn = await mainThread(cdp);
    const sent = await page.evaluate(startStoredWatch);
    await page.keyboard.press('Enter');
    const stored = await waitFor(page, (probe) => probe.storedAt);
    const turnEnd = await waitIdle(page, cdp, stored, quietMs);
    const afterTurn = await mainThread(cdp);
    const reloadStart = await page.evaluate(
      (after) =>
        (window as unknown as { benchProbe: PageProbe }).benchProbe.historyLoads.find((end) => end > after),
      sent,
    );
    if (reloadStart === undefined) throw new Error('the answer was stored without a history reload');

    // DOM clicks, not Playwright's (its actionability checks run scripts in the page).
    const report = page.getByTestId('call-report');
    const reportOpenStart = await page.evaluate(clickLast, '.message.assistant button[data-call]');
    await report.and(page.locator('[data-call-id]')).waitFor();
    const reportOpenEnd = await waitIdle(page, cdp, reportOpenStart, quietMs);
    const afterReportOpen = await mainThread(cdp);
    const reportCloseStart = await page.evaluate(clickLast, '[data-testid="call-report"] .panel-head button');
    await report.waitFor({ state: 'detached' });
    const reportCloseEnd = await waitIdle(page, cdp, reportCloseStart, quietMs);
    const afterReportClose = await mainThread(cdp);

    const scrollStart = await pageNow(page);
    for (let screen = 0; screen < SCROLL_SCREENS; screen++) await page.evaluate(scrollOneScreenUp);
    const scrollEnd = await waitIdle(page, cdp, await pageNow(page), quietMs);
    const afterScroll = await mainThread(cdp);
    return {
      openMs: openEnd,
      openLongTaskMs,
      openTaskMs: opened.taskMs,
      openScriptMs: opened.scriptMs,
      openLayoutMs: opened.layoutMs,
      elements,
      reloadMs: turnEnd - reloadStart,
      turnLongTaskMs: await longTaskMs(page, sent, turnEnd),
      turnTaskMs: afterTurn.taskMs - beforeTurn.taskMs,
      reportOpenMs: reportOpenEnd - reportOpenStart,
      reportOpenTaskMs: afterReportOpen.taskMs - afterTurn.taskMs,
      reportCloseMs: reportCloseEnd - reportCloseStart,
      reportCloseTaskMs: afterReportClose.taskMs - afterReportOpen.taskMs,
      scrollLongTaskMs: await longTaskMs(page, scrollStart, scrollEnd),
      scrollLongestTaskMs: await longTaskMs(page, scrollStart, scrollEnd, 'longest'),
      scrollTaskMs: afterScroll.taskMs - afterReportClose.taskMs,
    };
  } finally {
    await context.close();
  }
}

/** Runs in the page before its scripts: long tasks, history responses, the chips' arrival. */
function installProbe(options: { chips: number; historyPath: string }): void {
  const probe: PageProbe = { longTasks: [], lastMutation: 0, historyLoads: [] };
  (window as unknown as { benchProbe: PageProbe }).benchProbe = probe;
  // React renders a retry (a suspended renderer that has loaded) in slices of a few ms: no
  // long task shows it, only the commit that ends it.
  new MutationObserver(() => {
    probe.lastMutation = performance.now();
  }).observe(document, { subtree: true, childList: true, characterData: true });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      probe.longTasks.push({ start: entry.startTime, end: entry.startTime + entry.duration });
    }
  }).observe({ type: 'longtask', buffered: true });
  // An observer, not the resource buffer: the buffer keeps only the first 250 entries.
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as PerformanceResourceTiming[]) {
      if (new URL(entry.name).pathname === options.historyPath) probe.historyLoads.push(entry.responseEnd);
    }
  }).observe({ type: 'resource' });
  // A live collection: reading its length each frame costs next to nothing.
  const chips = document.getElementsByClassName('report-chip');
  const watch = () => {
    if (chips.length >= options.chips) probe.presentAt = performance.now();
    else requestAnimationFrame(watch);
  };
  requestAnimationFrame(watch);
}

/** Watches, frame by frame, for a new answer with its curation button; returns the page's now. */
function startStoredWatch(): number {
  const probe = (window as unknown as { benchProbe: PageProbe }).benchProbe;
  const answers = document.getElementsByClassName('message assistant');
  const before = answers.length;
  const watch = () => {
    const last = answers[answers.length - 1];
    if (answers.length > before && last?.querySelector('button[data-curate]'))
      probe.storedAt = performance.now();
    else requestAnimationFrame(watch);
  };
  requestAnimationFrame(watch);
  return performance.now();
}

/** Clicks the last element matching `selector`; returns the page's now, just before. */
function clickLast(selector: string): number {
  const elements = document.querySelectorAll<HTMLElement>(selector);
  const last = elements[elements.length - 1];
  if (last === undefined) throw new Error(`nothing matches ${selector}`);
  const now = performance.now();
  last.click();
  return now;
}

async function scrollOneScreenUp(): Promise<void> {
  const list = document.querySelector('.messages');
  if (list === null) throw new Error('no message list');
  list.scrollTop -= list.clientHeight;
  // Two frames: the scroll is drawn, and whatever it set off has run.
  await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  await new Promise((resolve) => setTimeout(resolve, 50));
}

const pageNow = (page: Page) => page.evaluate(() => performance.now());

/** The renderer main thread's cumulative task, script and layout time so far, in ms. */
async function mainThread(cdp: CDPSession): Promise<{ taskMs: number; scriptMs: number; layoutMs: number }> {
  const { metrics } = await cdp.send('Performance.getMetrics');
  const read = (name: string) => 1000 * (metrics.find((metric) => metric.name === name)?.value ?? 0);
  return { taskMs: read('TaskDuration'), scriptMs: read('ScriptDuration'), layoutMs: read('LayoutDuration') };
}

/** Polls the probe until `read` returns a time; fails after `timeoutMs`. */
async function waitFor(
  page: Page,
  read: (probe: PageProbe) => number | undefined,
  timeoutMs = 300_000,
): Promise<number> {
  const started = Date.now();
  for (;;) {
    const probe = await page.evaluate(() => (window as unknown as { benchProbe: PageProbe }).benchProbe);
    const value = read(probe);
    if (value !== undefined) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting on the page (${read})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The page's last activity after `since` (the end of a long task, a change of the document's
 * content, or `since`), once there has been none for `quietMs` and the main thread was busy
 * less than a tenth of that time (Chromium's task time: sliced rendering shows there). Page
 * clock, ms.
 */
async function waitIdle(page: Page, cdp: CDPSession, since: number, quietMs: number): Promise<number> {
  const busy: { at: number; taskMs: number }[] = [];
  for (;;) {
    const { now, last } = await page.evaluate(() => {
      const probe = (window as unknown as { benchProbe: PageProbe }).benchProbe;
      const lastTask = Math.max(0, ...probe.longTasks.map((task) => task.end));
      return { now: performance.now(), last: Math.max(lastTask, probe.lastMutation) };
    });
    const { taskMs } = await mainThread(cdp);
    busy.push({ at: Date.now(), taskMs });
    const windowStart = busy.find((sample) => sample.at >= Date.now() - quietMs);
    const settled = Math.max(since, last);
    if (
      now - settled >= quietMs &&
      windowStart !== undefined &&
      windowStart !== busy[0] &&
      taskMs - windowStart.taskMs < quietMs / 10
    ) {
      return settled;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Long tasks that started in [from, to], summed (or the longest), in ms. */
function longTaskMs(page: Page, from: number, to: number, pick: 'sum' | 'longest' = 'sum'): Promise<number> {
  return page.evaluate(
    ([start, end, longest]) =>
      (window as unknown as { benchProbe: PageProbe }).benchProbe.longTasks
        .filter((task) => task.start >= start && task.start <= end)
        .map((task) => task.end - task.start)
        .reduce((total, duration) => (longest ? Math.max(total, duration) : total + duration), 0),
    [from, to, pick === 'longest'] as const,
  );
}
