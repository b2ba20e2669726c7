// The call report: open in the URL, so a reload, or back and forward, opens the same call
// again; its diff's per-layer table adds up to the totals it sits under.
import { rm } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { CallListResponse } from '../../src/server/api-types.ts';
import type { NotebookServer } from '../../src/server/index.ts';
import {
  ask,
  launchChromium,
  openNotebookPage,
  poll,
  screenshot,
  serveExampleCopy,
} from './notebook-browser.ts';

let root: string;
let server: NotebookServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  ({ root, server } = await serveExampleCopy('ctxloom-e2e-call-url-', 0));
  browser = await launchChromium(inject('chromiumPath'));
  page = await openNotebookPage(browser, server.browserUrl);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('an open call report', () => {
  it('stays open across a reload and back/forward, and closing it leaves the URL', async () => {
    try {
      await poll(() => page.locator('.message.assistant').count(), { timeout: 20_000 }).toBeGreaterThan(0);
      await ask(page, 'What is a term in Raft?', (await page.locator('.message.assistant').count()) + 1);
      const chip = page.locator('.message.assistant button[data-call]').last();
      const callId = await chip.getAttribute('data-call');
      expect(callId).toBeTruthy();
      await chip.click();
      const report = page.getByTestId('call-report');
      await poll(() => report.getAttribute('data-call-id')).toBe(callId);

      await page.reload();
      await poll(() => report.getAttribute('data-call-id'), { timeout: 20_000 }).toBe(callId);
      expect(new URL(page.url()).searchParams.get('session')).toBe('raft-consensus');

      await page.goto('about:blank');
      await page.goBack();
      await poll(() => report.getAttribute('data-call-id'), { timeout: 20_000 }).toBe(callId);

      // Closed, it is no longer in the URL: a reload shows the preview.
      await report.getByRole('button', { name: 'Back to the preview' }).click();
      await poll(() => new URL(page.url()).searchParams.has('call')).toBe(false);
      await page.reload();
      await poll(() => page.getByTestId('preview-total').isVisible(), { timeout: 20_000 }).toBe(true);
      expect(await report.count()).toBe(0);

      // At 390 px a reload with a call open shows the Context tab with the report.
      await chip.click();
      await poll(() => report.getAttribute('data-call-id')).toBe(callId);
      await page.setViewportSize({ width: 390, height: 844 });
      await page.reload();
      await poll(() => report.isVisible(), { timeout: 20_000 }).toBe(true);
      expect(await page.locator('.panel-tabs [role="tab"][aria-selected="true"]').textContent()).toBe(
        'Context',
      );
      await screenshot(page, 'call-url-390-reloaded');
    } catch (error) {
      await screenshot(page, 'failure-call-url');
      throw error;
    }
  }, 120_000);

  it('diffs against the previous call in a table whose rows add up to both totals', async () => {
    try {
      await page.setViewportSize({ width: 1440, height: 900 });
      await page.goto(`${server.url}/?session=raft-consensus`);
      await poll(() => page.locator('.message.assistant button[data-call]').count(), {
        timeout: 20_000,
      }).toBeGreaterThan(0);
      await ask(
        page,
        'How does log replication work?',
        (await page.locator('.message.assistant').count()) + 1,
      );
      await page.locator('.message.assistant button[data-call]').last().click();
      const report = page.getByTestId('call-report');
      await report.getByRole('tab', { name: 'Diff with previous call' }).click();
      const diff = report.getByTestId('call-diff');
      await poll(() => diff.isVisible(), { timeout: 20_000 }).toBe(true);
      const response = await fetch(`${server.url}/api/sessions/raft-consensus/calls`, {
        headers: { Authorization: `Bearer ${server.token}` },
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
      await screenshot(page, 'call-diff-rows-add-up');
    } catch (error) {
      await screenshot(page, 'failure-call-diff-rows');
      throw error;
    }
  }, 120_000);
});
