// The call report: open in the URL, so a reload, or back and forward, opens the same call
// again; a link to a call (or session) that is not there says so and leaves the URL; the
// diff's per-layer table adds up to the totals it sits under.
import type { Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { CallListResponse } from '../../src/server/api-types.ts';
import { ask, poll, screenshot, servedNotebookPage } from './notebook-browser.ts';

const params = (url: string) => Object.fromEntries(new URL(url).searchParams);

const notebook = servedNotebookPage('ctxloom-e2e-call-url-');

describe('an open call report', () => {
  it('stays open across a reload and back/forward, and closing it leaves the URL', async () => {
    try {
      await poll(() => notebook.page.locator('.message.assistant').count(), {
        timeout: 20_000,
      }).toBeGreaterThan(0);
      await ask(
        notebook.page,
        'What is a term in Raft?',
        (await notebook.page.locator('.message.assistant').count()) + 1,
      );
      const chip = notebook.page.locator('.message.assistant button[data-call]').last();
      const callId = await chip.getAttribute('data-call');
      expect(callId).toBeTruthy();
      await chip.click();
      const report = notebook.page.getByTestId('call-report');
      await poll(() => report.getAttribute('data-call-id')).toBe(callId);

      await notebook.page.reload();
      await poll(() => report.getAttribute('data-call-id'), { timeout: 20_000 }).toBe(callId);
      expect(new URL(notebook.page.url()).searchParams.get('session')).toBe('raft-consensus');

      await notebook.page.goto('about:blank');
      await notebook.page.goBack();
      await poll(() => report.getAttribute('data-call-id'), { timeout: 20_000 }).toBe(callId);

      // Closed, it is no longer in the URL: a reload shows the preview.
      await report.getByRole('button', { name: 'Back to the preview' }).click();
      await poll(() => new URL(notebook.page.url()).searchParams.has('call')).toBe(false);
      await notebook.page.reload();
      await poll(() => notebook.page.getByTestId('preview-total').isVisible(), { timeout: 20_000 }).toBe(
        true,
      );
      expect(await report.count()).toBe(0);

      // At 390 px a reload with a call open shows the Context tab with the report.
      await chip.click();
      await poll(() => report.getAttribute('data-call-id')).toBe(callId);
      await notebook.page.setViewportSize({ width: 390, height: 844 });
      await notebook.page.reload();
      await poll(() => report.isVisible(), { timeout: 20_000 }).toBe(true);
      expect(
        await notebook.page.locator('.panel-tabs [role="tab"][aria-selected="true"]').textContent(),
      ).toBe('Context');
      await screenshot(notebook.page, 'call-url-390-reloaded');
    } catch (error) {
      await screenshot(notebook.page, 'failure-call-url');
      throw error;
    }
  }, 120_000);

  it('says a link’s call that is not in the log was not found, drops it from the URL and shows the preview', async () => {
    const page = notebook.page;
    const notice = page.getByTestId('link-notice');
    try {
      // At 390 px, in Chinese: the notice is in the page's language, over the Context tab; a
      // long id is cut.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${notebook.server.url}/?lang=zh&session=raft-consensus&call=${'x'.repeat(300)}`);
      await poll(() => notice.textContent(), { timeout: 20_000 }).toBe(
        `链接中的调用「${'x'.repeat(39)}…」不在本会话的调用日志中（不存在，或早于日志保留的最近 200 次调用）；改为显示上下文预览。×`,
      );
      await poll(() => params(page.url())).toEqual({ lang: 'zh', session: 'raft-consensus' });
      await poll(() => page.getByTestId('preview-total').isVisible(), { timeout: 20_000 }).toBe(true);
      expect(await page.locator('.panel-tabs [role="tab"][aria-selected="true"]').textContent()).toBe(
        '上下文',
      );
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await screenshot(page, 'call-url-missing-call-390-zh');

      // At 1440 px, in English (the language the next test reads).
      await page.setViewportSize({ width: 1440, height: 900 });
      await page.goto(`${notebook.server.url}/?lang=en&session=raft-consensus&call=no-such-call`);
      await poll(() => notice.textContent(), { timeout: 20_000 }).toBe(
        'Call “no-such-call” from the link is not in this session’s log (unknown, or older than the newest 200 calls it keeps); the context preview shows instead.×',
      );
      await poll(() => params(page.url())).toEqual({ lang: 'en', session: 'raft-consensus' });
      await poll(() => page.getByTestId('preview-total').isVisible(), { timeout: 20_000 }).toBe(true);
      expect(await page.getByTestId('call-report').count()).toBe(0);
      expect(await page.locator('.error-banner').count()).toBe(0);
      await screenshot(page, 'call-url-missing-call-1440');
      await notice.getByRole('button', { name: 'Close' }).click();
      await poll(() => notice.textContent()).toBe('');

      expect(await page.getByTestId('call-report').count()).toBe(0);
    } catch (error) {
      await screenshot(page, 'failure-call-url-missing');
      throw error;
    } finally {
      await page.setViewportSize({ width: 1440, height: 900 });
    }
  }, 120_000);

  // A link's missing session: its call is not opened either; the first session shows and the
  // URL names it. Its own requests fail with "does not exist" — before the session list comes
  // back, or after (a busy machine may answer in either order) — and no such error shows
  // beside the notice.
  for (const order of ['before', 'after'] as const) {
    it(`says a link’s session does not exist, its own failures coming ${order} the session list`, async () => {
      const page = notebook.page;
      const missing = (url: URL) => url.pathname.startsWith('/api/sessions/no-such-session/');
      const list = (url: URL) => url.pathname === '/api/sessions';
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let started = 0;
      let ended = 0;
      const start = (request: Request) => {
        if (missing(new URL(request.url()))) started += 1;
      };
      const end = (request: Request) => {
        if (missing(new URL(request.url()))) ended += 1;
      };
      page.on('request', start);
      page.on('requestfinished', end);
      page.on('requestfailed', end);
      await page.route(order === 'before' ? list : missing, async (route) => {
        await released;
        // A held request of the missing session may have been given up (its session replaced).
        await route.continue().catch(() => undefined);
      });
      try {
        await page.goto(`${notebook.server.url}/?lang=en&session=no-such-session&call=no-such-call`);
        const banner = page.locator('.error-banner');
        if (order === 'before') {
          await poll(() => banner.count(), { timeout: 20_000 }).toBe(1);
          release();
        }
        await poll(() => page.getByTestId('link-notice').textContent(), { timeout: 20_000 }).toBe(
          'Session “no-such-session” from the link does not exist. Call “no-such-call” from the link was not opened.×',
        );
        await poll(() => params(page.url())).toEqual({ lang: 'en', session: 'raft-consensus' });
        await poll(() => page.locator('.message.assistant').count(), { timeout: 20_000 }).toBeGreaterThan(0);
        await poll(() => page.getByTestId('preview-total').isVisible(), { timeout: 20_000 }).toBe(true);
        if (order === 'after') {
          release();
          await poll(() => started > 0 && ended === started).toBe(true);
          // Two frames: the page has handled what those answers brought.
          for (let frame = 0; frame < 2; frame++)
            await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
        }
        await poll(() => banner.count()).toBe(0);
        expect(await page.getByTestId('call-report').count()).toBe(0);
      } catch (error) {
        await screenshot(page, `failure-call-url-missing-session-${order}`);
        throw error;
      } finally {
        release();
        await page.unrouteAll({ behavior: 'ignoreErrors' });
        page.off('request', start);
        page.off('requestfinished', end);
        page.off('requestfailed', end);
      }
    }, 120_000);
  }

  it('diffs against the previous call in a table whose rows add up to both totals', async () => {
    try {
      await notebook.page.setViewportSize({ width: 1440, height: 900 });
      await notebook.page.goto(`${notebook.server.url}/?session=raft-consensus`);
      await poll(() => notebook.page.locator('.message.assistant button[data-call]').count(), {
        timeout: 20_000,
      }).toBeGreaterThan(0);
      await ask(
        notebook.page,
        'How does log replication work?',
        (await notebook.page.locator('.message.assistant').count()) + 1,
      );
      await notebook.page.locator('.message.assistant button[data-call]').last().click();
      const report = notebook.page.getByTestId('call-report');
      await report.getByRole('tab', { name: 'Diff with previous call' }).click();
      const diff = report.getByTestId('call-diff');
      await poll(() => diff.isVisible(), { timeout: 20_000 }).toBe(true);
      const response = await fetch(`${notebook.server.url}/api/sessions/raft-consensus/calls`, {
        headers: { Authorization: `Bearer ${notebook.server.token}` },
      });
      const { calls } = (await response.json()) as CallListResponse;
      const [previous, current] = calls.slice(-2).map((call) => call.report);
      const number = (text: string | null) => Number((text ?? '').replace(/,/gu, ''));
      const rows = await diff
        .locator('table.diff-layers tbody tr')
        .evaluateAll((trs) =>
          trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent)),
        );
      const sum = (column: number) => rows.reduce((total, row) => total + number(row[column] ?? ''), 0);
      expect(sum(0)).toBe(previous?.totalTokens);
      expect(sum(1)).toBe(current?.totalTokens);
      // The tools and the request overhead are a row of their own, named as such.
      const other = diff.locator('tr[data-row="other"]');
      expect(await other.locator('th').textContent()).toBe('tools + request overhead');
      expect(number(await other.locator('td').nth(1).textContent())).toBe(
        (current?.tools?.tokens ?? 0) + (current?.overheadTokens ?? 0),
      );
      const total = diff.locator('tr[data-row="total"] td');
      expect(number(await total.nth(0).textContent())).toBe(previous?.totalTokens);
      expect(number(await total.nth(1).textContent())).toBe(current?.totalTokens);
      await screenshot(notebook.page, 'call-diff-rows-add-up');
    } catch (error) {
      await screenshot(notebook.page, 'failure-call-diff-rows');
      throw error;
    }
  }, 120_000);
});
